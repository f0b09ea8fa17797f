// §7 Prices: what pricing a model call costs. Every variant runs the same managed LLM call (a reply
// with a model and usage, no I/O) on its own runtime with a no-op subscriber, interleaved; the
// baseline is the same call with `pricing: false`. The first priced call of a process, which loads
// the bundled table, is timed in a fresh child (bench/child/price-table.mjs).
import { runChild } from "../lib/child.mjs";
import { interleave } from "../lib/stats.mjs";
import { loop } from "../lib/workload.mjs";
import { mib, ns, ratio, table } from "../lib/format.mjs";

const REQUEST = Object.freeze({ content: Object.freeze({ model: "gpt-4o-mini", messages: Object.freeze([]) }) });

function reply(model) {
  return Object.freeze({
    id: "r",
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 2000, completion_tokens: 300, total_tokens: 2300, prompt_tokens_details: { cached_tokens: 1200 } },
  });
}

const VARIANTS = {
  off: { options: { pricing: false }, model: "gpt-4o-mini-2024-07-18" },
  table: { options: {}, model: "gpt-4o-mini-2024-07-18" },
  "table, unknown model": { options: {}, model: "stub" },
  "app's entry": {
    options: { pricing: { entries: [{ model: "gpt-4o-mini", inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0.075 }] } },
    model: "gpt-4o-mini-2024-07-18",
  },
};

export async function runPrices(api, cfg) {
  const variants = Object.entries(VARIANTS).map(([name, { options, model }]) => {
    let runtime;
    const body = reply(model);
    const call = () => runtime.executeLlm("openai.chat_completions", REQUEST, () => body);
    return {
      name,
      setup: () => {
        runtime = api.createRuntime(options);
        runtime.subscribe("noop", () => {});
      },
      run: (count) => loop(count, call),
      afterRound: () => runtime.flush(),
      teardown: () => runtime.shutdown(),
    };
  });
  const stats = await interleave(variants, cfg);
  const firstCall = await runChild("price-table.mjs", []);
  return { config: cfg, stats, firstCall };
}

export function formatPrices(r) {
  const base = r.stats.off.median;
  const perCall = table(
    ["pricing", "ns per LLM call", "p95", "vs pricing: false", "added ns"],
    Object.entries(r.stats).map(([name, s]) => [name, ns(s.median), ns(s.p95), ratio(s.median / base), ns(s.median - base)]),
  );
  const f = r.firstCall;
  const first = table(
    ["first priced call of a process", "ms"],
    [
      ["import relaytrace", f.importMs.toFixed(1)],
      ["first priced call (loads the table)", f.firstMs.toFixed(1)],
      ["second priced call", f.secondMs.toFixed(3)],
      [`heap after the first call − before (MiB)`, mib(f.heapDeltaBytes)],
    ],
  );
  return `${perCall}\n\n${first}`;
}
