// The growth pair: how tracing's cost per turn grows with the conversation, relaytrace against
// ai 7 + `@ai-sdk/otel` on the same conversations. Each turn's request carries the whole
// conversation so far, and both sides record it whole (relaytrace: the ATOF event's body and the
// openinference span's input; ai 7: its chat span's `gen_ai.input.messages`), so per-turn cost
// grows on both sides; the target is that relaytrace's grows no faster than the peer's.
//
// The sides and the provider are the ai 7 pair's (ai7-pair.mjs): one tool call a turn, ~2 KB of
// text and a ~2 KB tool result added to the context each turn, loopback provider with a 1 ms
// reply delay. Eight blocks interleaved: each side traced and untraced, on a 5-turn and a 50-turn
// conversation, as many turns per block either way. Per round and side, the added CPU per turn
// (traced − untraced, flush included, / turns) at 50 turns over that at 5 turns is its growth; the
// row is relaytrace's growth over ai 7's, round by round.
import { startProvider } from "./loop.mjs";
import { CONVERSATION_TOOL } from "./conversation.mjs";
import { NoopSpanExporter } from "../lib/workload.mjs";
import { median } from "../lib/stats.mjs";
import { RELAYTRACE_EXPORTERS, ai7Side, ai7Telemetry, loadAi7, relaytraceSide, runsBlock } from "./ai7-pair.mjs";

const LENGTHS = [5, 50];

/**
 * A no-op exporter that, while `inspecting` (the warm-up), keeps the most text (string attribute
 * characters) any one span carried: the check that a side records a late turn's whole
 * conversation. relaytrace's openinference span spreads it over `llm.input_messages.*` (and a
 * text `input.value` without the tool results), ai 7's span holds it as one JSON text.
 */
class SpanTextExporter extends NoopSpanExporter {
  inspecting = false;
  most = 0;
  export(spans, done) {
    if (this.inspecting) {
      for (const span of spans) {
        let chars = 0;
        for (const value of Object.values(span.attributes)) if (typeof value === "string") chars += value.length;
        if (chars > this.most) this.most = chars;
      }
    }
    super.export(spans, done);
  }
}

/** Per round, added CPU per turn of `side` at `turns` turns (a side's samples are CPU per run). */
const addedPerTurn = (s, side, turns) => s[`${side}On${turns}`].map((on, i) => (on - s[`${side}Off${turns}`][i]) / turns);

/**
 * Per round, `side`'s growth: added CPU per turn at 50 turns over that at 5. A round where either
 * is ≤ 0 (the traced block cost no more than the untraced one) is below the noise: NaN, unreadable.
 */
export function growthOf(s, side) {
  const at5 = addedPerTurn(s, side, 5);
  const at50 = addedPerTurn(s, side, 50);
  return at50.map((v, i) => (v > 0 && at5[i] > 0 ? v / at5[i] : NaN));
}

/** Measures the pair; `measureBlocks`, the ratio helpers and `more` (optional) come from the targets suite. */
export async function measureGrowthPair(t, cfg, { measureBlocks, perRoundRatios, summarizeRatios, more }) {
  const peers = await loadAi7();
  if (peers.missing) return { limit: t.limit, notMeasured: peers.missing };
  const exporters = { relaytrace: new SpanTextExporter(), ai7: new SpanTextExporter() };
  const telemetry = ai7Telemetry(peers, exporters.ai7);
  const providers = {};
  const ratiosOf = (s) => perRoundRatios(growthOf(s, "relaytrace"), growthOf(s, "ai7"));
  try {
    const blocks = [];
    for (const turns of LENGTHS) {
      providers[turns] = await startProvider({
        delayMs: 1,
        toolTurns: turns,
        toolsPerTurn: 1,
        tools: [CONVERSATION_TOOL.name],
        assistantTextBytes: 2_000,
      });
      const url = providers[turns].url;
      const runs = turns === 5 ? cfg.runs5 : cfg.runs50;
      // The traced 50-turn blocks inspect what their spans carry during the warm-up only.
      const inspected = (side, exporter) => async () => {
        const inner = await side();
        return { ...inner, run: (warm) => ((exporter.inspecting = warm && turns === 50), inner.run()) };
      };
      blocks.push(
        runsBlock(
          `relaytraceOn${turns}`,
          runs,
          inspected(
            () => relaytraceSide(cfg.api, url, RELAYTRACE_EXPORTERS, turns, { spanExporter: exporters.relaytrace }),
            exporters.relaytrace,
          ),
        ),
        runsBlock(`relaytraceOff${turns}`, runs, () => relaytraceSide(cfg.api, url, [], turns)),
        runsBlock(
          `ai7On${turns}`,
          runs,
          inspected(async () => ai7Side(peers, url, telemetry, turns), exporters.ai7),
        ),
        runsBlock(`ai7Off${turns}`, runs, async () => ai7Side(peers, url, undefined, turns)),
      );
    }
    const s = await measureBlocks(blocks, {
      rounds: cfg.rounds,
      metric: "cpu",
      warmup: 1,
      more: more && ((samples, n, seconds) => more(ratiosOf(samples), n, seconds)),
    });
    // The last request of a 50-turn run holds the whole conversation (~210 KB); a side that records
    // it whole has a span carrying at least 80 % as much text (the wire's JSON syntax aside).
    const [lastRequestBytes] = (await providers[50].sizes()).at(-1);
    const short = Object.entries(exporters)
      .filter(([, e]) => e.most < lastRequestBytes * 0.8)
      .map(([side, e]) => `${side}'s largest span holds ${e.most} chars of text, the last request ${lastRequestBytes} bytes`);
    const own = (side) => summarizeRatios(growthOf(s, side).filter(Number.isFinite), Infinity, s[`${side}On5`].length);
    const detail = {
      lastRequestBytes,
      largestSpanText: { relaytrace: exporters.relaytrace.most, ai7: exporters.ai7.most },
      growth: { relaytrace: own("relaytrace"), ai7: own("ai7") },
      // Medians over rounds, ns of CPU per turn.
      addedPerTurn: Object.fromEntries(
        ["relaytrace", "ai7"].map((side) => [side, Object.fromEntries(LENGTHS.map((n) => [n, median(addedPerTurn(s, side, n))]))]),
      ),
    };
    const summary = { ...summarizeRatios(ratiosOf(s), t.limit, s.relaytraceOn5.length), detail, samples: s };
    return short.length ? { ...summary, invalid: `not the whole conversation: ${short.join("; ")}` } : summary;
  } finally {
    for (const turns of LENGTHS) await providers[turns]?.close();
    await telemetry.close();
  }
}
