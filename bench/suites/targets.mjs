// The performance targets: every one a ratio of two sides measured in the same run, interleaved
// (A B, then B A, ...), `global.gc()` before every block, the ratio read round by round. Printed
// as ONE table: pair, median of the per-round ratios, their spread (min–max), target, met / not met.
// Runs in a child process of its own with --expose-gc (bench/child/targets.mjs).
import { startOtlpReceiver } from "../lib/otlp-receiver.mjs";
import { REFERENCES, TOOL_VARIANTS, dropsOf } from "../lib/variants.mjs";
import { loop } from "../lib/workload.mjs";
import { perRoundRatios, summarizeRatios, targetRow } from "../lib/ratios.mjs";
import { table } from "../lib/format.mjs";
import { makeLoopSetup, startProvider } from "./loop.mjs";
import { CONVERSATION_TOOL } from "./conversation.mjs";
import { measureAi7Pair } from "./ai7-pair.mjs";
import { runNemo } from "./nemo.mjs";
import { nemoInstalled } from "../lib/nemo.mjs";
import { node24Path } from "../lib/node24.mjs";

/** The targets in the order they are printed. `kind` says how the pair is measured. */
export const TARGETS = [
  {
    key: "openinference",
    label: "openinference projection, no-op exporter / OpenInference traceTool (wall)",
    limit: 0.8,
    kind: "peer",
  },
  {
    key: "full",
    label: "full projection, no-op exporter / raw OTel span, same 19 attrs (wall)",
    limit: 0.8,
    kind: "tool",
    a: "otelFull",
    b: "rawOtelFull",
    metric: "wall",
  },
  {
    key: "otlpJson",
    label: "full → OTLP HTTP/JSON / raw span → exporter-trace-otlp-http (CPU per span, flush incl.)",
    limit: 0.8,
    kind: "tool",
    a: "otlpJsonFull",
    b: "rawOtlpJsonFull",
    metric: "cpu",
  },
  {
    key: "otlpProto",
    label: "full → OTLP HTTP/protobuf / raw span → exporter-trace-otlp-proto (CPU per span, flush incl.)",
    limit: 0.8,
    kind: "tool",
    a: "otlpFull",
    b: "rawOtlpFull",
    metric: "cpu",
  },
  {
    key: "atof",
    label: "ATOF file sink / its floor (2 events built + stringified, no I/O) (wall)",
    limit: 1.3,
    kind: "tool",
    a: "atofFile",
    b: "atofFloor",
    metric: "wall",
  },
  {
    key: "none",
    label: "no subscriber / raw OTel span, 7 attrs (wall)",
    limit: 0.3,
    kind: "tool",
    a: "none",
    b: "rawOtel",
    metric: "wall",
  },
  {
    key: "ai7",
    label: "agent loop, 5 turns × 1 tool, ATOF + OTel openinference: added CPU per run / ai 7 generateText telemetry",
    limit: 0.6,
    kind: "ai7",
  },
  {
    key: "turns",
    label: "added CPU per turn (ATOF + OTel openinference), 50-turn / 5-turn conversation",
    limit: 1.2,
    kind: "turns",
  },
  // The OTel row's target is ≤ 0.1× (an OTel export does work NeMo Relay's binding defers); the others ≤ 0.05×.
  ...[
    ["none", "no subscriber", 0.05],
    ["interceptSanitizer", "1 intercept + 1 sanitizer", 0.05],
    ["atofFile", "ATOF file sink", 0.05],
    ["otlpOpeninference", "openinference → OTLP protobuf", 0.1],
  ].map(([variant, what, limit]) => ({
    key: `nemo.${variant}`,
    label: `${what} / NeMo Relay's Node binding, same set-up (wall, Node 24)`,
    limit,
    kind: "nemo",
    variant,
  })),
];

const gc = () => {
  if (typeof globalThis.gc !== "function") throw new Error("targets need global.gc: run with node --expose-gc");
  globalThis.gc();
};
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Measures `blocks` (each { name, setup, run, flush, teardown, units }) in rounds, order rotating,
 * gc before each block. metric "wall": ns per unit of run() alone, then flush (untimed); "cpu":
 * process CPU ns per unit of run() + flush. Returns { [name]: samples[] }.
 */
export async function measureBlocks(blocks, { rounds, warmup = 1, metric }) {
  for (const b of blocks) await b.setup?.();
  for (let w = 0; w < warmup; w++) {
    for (const b of blocks) {
      await b.run(true);
      await b.flush?.();
    }
  }
  const samples = Object.fromEntries(blocks.map((b) => [b.name, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      const order = blocks.map((_, i) => blocks[(i + r) % blocks.length]);
      for (const b of order) {
        gc();
        const c0 = cpuMicros();
        const t0 = process.hrtime.bigint();
        const units = await b.run(false);
        const t1 = process.hrtime.bigint();
        await b.flush?.();
        const c1 = cpuMicros();
        samples[b.name].push(metric === "wall" ? Number(t1 - t0) / units : ((c1 - c0) * 1000) / units);
      }
    }
  } finally {
    for (const b of blocks) await b.teardown?.();
  }
  return samples;
}

async function toolPair(t, cfg) {
  const otlp = TOOL_VARIANTS[t.a].otlp;
  const receiver = otlp ? await startOtlpReceiver() : undefined;
  const holders = {};
  const entry = (name, make) => ({
    name,
    setup: async () => void (holders[name] = await make()),
    run: async (warm) => {
      const n = warm ? cfg.warmupCalls : cfg.calls;
      await loop(n, holders[name].call);
      return n;
    },
    flush: () => holders[name].runtime?.flush() ?? holders[name].flush?.(),
    teardown: () => holders[name].close?.() ?? holders[name].shutdown?.(),
  });
  const blocks = [
    entry(t.a, () => TOOL_VARIANTS[t.a].make(cfg.api, { receiverUrl: receiver?.url(t.a) })),
    entry(t.b, () => REFERENCES[t.b].make({ receiverUrl: receiver?.url(t.b) })),
  ];
  let samples;
  let invalid;
  try {
    samples = await measureBlocks(blocks, { rounds: cfg.rounds, metric: t.metric, warmup: 1 });
  } finally {
    if (receiver) {
      const expected = cfg.warmupCalls + cfg.rounds * cfg.calls;
      const got = await receiver.stats();
      await receiver.close();
      const short = [t.a, t.b].filter((k) => (got[k]?.spans ?? 0) !== expected);
      if (short.length) invalid = short.map((k) => `${k} ${got[k]?.spans ?? 0}/${expected} spans received`).join(", ");
    }
  }
  const drops = dropsOf(holders[t.a]?.runtime) + (holders[t.b]?.failures?.() ?? 0);
  if (drops) invalid = [invalid, `${drops} dropped`].filter(Boolean).join(", ");
  return { ...summarizeRatios(perRoundRatios(samples[t.a], samples[t.b]), t.limit), invalid, samples };
}

/** OpenInference traceTool against relaytrace's openinference projection, if bench's peers are installed. */
async function openinferencePair(t, cfg) {
  let peers;
  try {
    await import("@arizeai/openinference-core");
    await import("@opentelemetry/context-async-hooks");
    peers = await import("../lib/peers.mjs");
  } catch {
    return { limit: t.limit, notMeasured: "@arizeai/openinference-core not installed (cd bench && npm install)" };
  }
  const holders = {};
  const entry = (name, make) => ({
    name,
    setup: async () => void (holders[name] = await make()),
    run: async (warm) => {
      const n = warm ? cfg.warmupCalls : cfg.calls;
      await loop(n, holders[name].call);
      return n;
    },
    flush: () => holders[name].runtime?.flush(),
    teardown: () => holders[name].close(),
  });
  const samples = await measureBlocks(
    [entry("relaytrace", () => TOOL_VARIANTS.otelOpeninference.make(cfg.api)), entry("traceTool", peers.peerFactories.openinference)],
    { rounds: cfg.rounds, metric: "wall" },
  );
  return { ...summarizeRatios(perRoundRatios(samples.relaytrace, samples.traceTool), t.limit), samples };
}

const LOOP_EXPORTERS = ["atof", "openinference"];

/**
 * Added CPU per turn of ATOF file + OTel openinference over the same conversation untraced, for a
 * 50-turn and a 5-turn conversation (each turn one LLM call with one tool call, ~2 KB of text and a
 * ~2 KB tool result added to the context), all four interleaved; per round (on50 − off50) / 50
 * over (on5 − off5) / 5, CPU including the end-of-run flush.
 */
async function turnsPair(t, cfg) {
  const lengths = [5, 50];
  const providers = {};
  const blocks = [];
  const setups = {};
  try {
    for (const turns of lengths) {
      providers[turns] = await startProvider({
        delayMs: 1,
        toolTurns: turns,
        toolsPerTurn: 1,
        tools: [CONVERSATION_TOOL.name],
        assistantTextBytes: 2_000,
      });
      for (const traced of [false, true]) {
        const name = `${traced ? "on" : "off"}${turns}`;
        const runs = turns === 5 ? cfg.runs5 : (cfg.runs50 ?? 1);
        blocks.push({
          name,
          setup: async () =>
            void (setups[name] = await makeLoopSetup(cfg.api, providers[turns].url, traced ? LOOP_EXPORTERS : [], {
              tools: [CONVERSATION_TOOL],
              maxTurns: turns + 5,
            })),
          run: async () => {
            for (let i = 0; i < runs; i++) {
              const result = await setups[name].run("Plan the trip, one city note at a time.");
              if (result.status !== "done") throw new Error(`${name}: run ended ${result.status}`);
            }
            return runs;
          },
          flush: () => setups[name].runtime.flush(),
          teardown: () => setups[name].close(),
        });
      }
    }
    const s = await measureBlocks(blocks, { rounds: cfg.rounds, metric: "cpu", warmup: 1 });
    const added = (turns) => s[`on${turns}`].map((on, i) => (on - s[`off${turns}`][i]) / turns);
    return { ...summarizeRatios(perRoundRatios(added(50), added(5)), t.limit, cfg.rounds), samples: s };
  } finally {
    for (const turns of lengths) await providers[turns]?.close();
  }
}

/**
 * relaytrace against NeMo Relay, one row per variant: both in one Node 24 child (the binding needs
 * it), interleaved block by block with a gc before each, the ratio read round by round. One child
 * run serves all four rows.
 */
async function nemoPair(t, cfg, shared) {
  if (!(await nemoInstalled())) return { limit: t.limit, notMeasured: "nemo-relay-node not installed (cd bench && npm install)" };
  if (!node24Path()) return { limit: t.limit, notMeasured: "bench's Node 24 not installed (cd bench && npm install)" };
  shared.nemo ??= runNemo(cfg, ["--expose-gc"]);
  const run = await shared.nemo;
  const row = run.rows.find((r) => r.name === t.variant);
  if (!row) return { limit: t.limit, notMeasured: "not run" };
  const summary = summarizeRatios(perRoundRatios(row.relaytraceSamples, row.nemoSamples), t.limit);
  const failed = [
    row.nemoDelivery.valid ? "" : "NeMo Relay lost events or spans",
    row.relaytraceDelivery.valid ? "" : "relaytrace lost events or spans",
  ].filter(Boolean);
  return failed.length ? { ...summary, invalid: failed.join(", ") } : summary;
}

export async function runTargets(api, cfg) {
  const shared = {};
  const results = {};
  for (const t of TARGETS) {
    if (cfg.only && !cfg.only.includes(t.key)) continue;
    const started = Date.now();
    try {
      if (t.kind === "tool") results[t.key] = await toolPair(t, { ...cfg.tool, api });
      else if (t.kind === "peer") results[t.key] = await openinferencePair(t, { ...cfg.tool, api });
      else if (t.kind === "turns") results[t.key] = await turnsPair(t, { ...cfg.turns, api });
      else if (t.kind === "nemo") results[t.key] = await nemoPair(t, cfg.nemo, shared);
      else results[t.key] = await measureAi7Pair(t, { ...(cfg.ai7 ?? cfg.turns), api }, { measureBlocks, perRoundRatios, summarizeRatios });
    } catch (error) {
      results[t.key] = { limit: t.limit, notMeasured: `failed: ${error?.message ?? error}` };
    }
    results[t.key].seconds = (Date.now() - started) / 1000;
    process.stderr.write(`targets: ${t.key} in ${results[t.key].seconds.toFixed(1)} s\n`);
  }
  return { config: { tool: cfg.tool, turns: cfg.turns, ai7: cfg.ai7, nemo: cfg.nemo }, results };
}

export function formatTargets(r) {
  const rows = TARGETS.filter((t) => r.results[t.key]).map((t) => targetRow(t.label, r.results[t.key]));
  const c = r.config;
  return [
    table(["pair (same run, interleaved, gc between blocks)", "median of per-round ratios", "spread (min–max)", "target", "verdict"], rows),
    "",
    `tool pairs: ${c.tool.rounds} rounds × ${c.tool.calls} calls per side after ${c.tool.warmupCalls} warm-up; ` +
      `conversation pair: ${c.turns.rounds} rounds (each block ${c.turns.runs50 ?? 1} 50-turn run(s) or ${c.turns.runs5} 5-turn runs; ` +
      "a round whose 5-turn added CPU is ≤ 0 is below the noise and left out)" +
      (c.ai7
        ? `; ai 7 pair: ${c.ai7.rounds} rounds of 4 blocks × ${c.ai7.runs} runs (a round whose ai 7 added CPU is ≤ 0 is left out)`
        : "") +
      (c.nemo
        ? `; NeMo Relay rows: one Node 24 child, ${c.nemo.rounds} rounds of ${c.nemo.calls} relaytrace and ${c.nemo.nemoCalls} NeMo Relay calls per block`
        : "") +
      ". Wall pairs time the calls; CPU pairs include the flush.",
  ].join("\n");
}
