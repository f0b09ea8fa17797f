// The performance targets: every one a ratio of two sides measured in the same run, interleaved
// (A B, then B A, ...), `global.gc()` before every block, the ratio read round by round. Printed
// as ONE table: pair, median of the per-round ratios, a 95 % confidence interval of that median,
// the rounds run, target, met / not met. A pair whose interval still holds its target runs more
// rounds, in batches, until it does not or a cap (rounds, time) is reached (bench/lib/ratios.mjs).
// Runs in a child process of its own with --expose-gc (bench/child/targets.mjs).
import { startOtlpReceiver } from "../lib/otlp-receiver.mjs";
import { REFERENCES, TOOL_VARIANTS, dropsOf } from "../lib/variants.mjs";
import { loop } from "../lib/workload.mjs";
import { extraAllowance, extraRounds, perRoundRatios, summarizeRatios, targetRow } from "../lib/ratios.mjs";
import { table } from "../lib/format.mjs";
import { measureAi7Pair } from "./ai7-pair.mjs";
import { measureGrowthPair } from "./growth-pair.mjs";
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
    key: "growth",
    label: "growth of added CPU per turn, 50 / 5 turns, ATOF + OTel openinference / ai 7 + @ai-sdk/otel",
    limit: 1.0,
    kind: "growth",
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
 * process CPU ns per unit of run() + flush. After the `rounds`, and after each batch it asks for,
 * `more(samples, roundsRun, secondsPerRound)` (optional) says how many rounds to add (0: done).
 * Returns { [name]: samples[] }.
 */
export async function measureBlocks(blocks, { rounds, warmup = 1, metric, more }) {
  for (const b of blocks) await b.setup?.();
  for (let w = 0; w < warmup; w++) {
    for (const b of blocks) {
      await b.run(true);
      await b.flush?.();
    }
  }
  const samples = Object.fromEntries(blocks.map((b) => [b.name, []]));
  const started = Date.now();
  try {
    for (let r = 0, planned = rounds; r < planned;) {
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
      r += 1;
      if (r === planned && more) planned += more(samples, r, (Date.now() - started) / 1000 / r);
    }
  } finally {
    for (const b of blocks) await b.teardown?.();
  }
  return samples;
}

/** The extra-rounds rule for pair `t` (undefined when the run adds none), and its `more` for measureBlocks. */
function extraFor(t, cfg, ratiosOf) {
  if (!cfg.extra) return {};
  const rule = extraRounds({ limit: t.limit, ...cfg.extra });
  return { rule, more: (samples, n, seconds) => rule.next(ratiosOf(samples), n, seconds) };
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
  const ratiosOf = (s) => perRoundRatios(s[t.a], s[t.b]);
  const { rule, more } = extraFor(t, cfg, ratiosOf);
  let samples;
  let invalid;
  try {
    samples = await measureBlocks(blocks, { rounds: cfg.rounds, metric: t.metric, warmup: 1, more });
  } finally {
    if (receiver) {
      const expected = cfg.warmupCalls + (samples?.[t.a].length ?? cfg.rounds) * cfg.calls;
      const got = await receiver.stats();
      await receiver.close();
      const short = [t.a, t.b].filter((k) => (got[k]?.spans ?? 0) !== expected);
      if (short.length) invalid = short.map((k) => `${k} ${got[k]?.spans ?? 0}/${expected} spans received`).join(", ");
    }
  }
  const drops = dropsOf(holders[t.a]?.runtime) + (holders[t.b]?.failures?.() ?? 0);
  if (drops) invalid = [invalid, `${drops} dropped`].filter(Boolean).join(", ");
  return { ...summarizeRatios(ratiosOf(samples), t.limit), extra: rule?.outcome(), invalid, samples };
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
  const ratiosOf = (s) => perRoundRatios(s.relaytrace, s.traceTool);
  const { rule, more } = extraFor(t, cfg, ratiosOf);
  const samples = await measureBlocks(
    [entry("relaytrace", () => TOOL_VARIANTS.otelOpeninference.make(cfg.api)), entry("traceTool", peers.peerFactories.openinference)],
    { rounds: cfg.rounds, metric: "wall", more },
  );
  return { ...summarizeRatios(ratiosOf(samples), t.limit), extra: rule?.outcome(), samples };
}

/**
 * relaytrace against NeMo Relay, one row per variant: both in one Node 24 child (the binding needs
 * it), interleaved block by block with a gc before each, the ratio read round by round. One child
 * run serves all four rows.
 */
async function nemoPair(t, cfg, shared) {
  if (!(await nemoInstalled())) return { limit: t.limit, notMeasured: "nemo-relay-node not installed (cd bench && npm install)" };
  if (!node24Path()) return { limit: t.limit, notMeasured: "bench's Node 24 not installed (cd bench && npm install)" };
  // The child adds rounds to the rows whose interval holds their limit; its rows run together, so
  // they have one allowance of extra time between them.
  shared.nemo ??= (async () => {
    const limits = Object.fromEntries(shared.nemoRows.map((row) => [row.variant, row.limit]));
    const extra = cfg.extra && {
      batch: cfg.extra.batch,
      maxRounds: cfg.extra.maxRounds,
      minSeconds: cfg.extra.minSeconds,
      left: shared.left,
      limits,
    };
    const run = await runNemo({ ...cfg, extra }, ["--expose-gc"]);
    if (extra) shared.left -= Math.max(0, ...run.rows.map((row) => row.extra?.seconds ?? 0));
    return run;
  })();
  const run = await shared.nemo;
  const row = run.rows.find((r) => r.name === t.variant);
  if (!row) return { limit: t.limit, notMeasured: "not run" };
  const summary = { ...summarizeRatios(perRoundRatios(row.relaytraceSamples, row.nemoSamples), t.limit), extra: row.extra };
  const failed = [
    row.nemoDelivery.valid ? "" : "NeMo Relay lost events or spans",
    row.relaytraceDelivery.valid ? "" : "relaytrace lost events or spans",
  ].filter(Boolean);
  return failed.length ? { ...summary, invalid: failed.join(", ") } : summary;
}

/**
 * `cfg.extra` ({ batch, maxRounds, minSeconds, seconds }, optional): the extra-rounds rule. Every
 * pair runs its rounds; one whose interval still holds its target then adds `batch` rounds at a
 * time until it does not, `maxRounds` have run, or its extra time reaches its allowance (as long
 * as its first rounds took, at least `minSeconds`, within what is left of `seconds`, the extra
 * time of the whole table; the NeMo Relay rows run in one child and share one allowance).
 */
export async function runTargets(api, cfg) {
  const selected = TARGETS.filter((t) => !cfg.only || cfg.only.includes(t.key));
  const shared = { left: cfg.extra?.seconds ?? 0, nemoRows: selected.filter((t) => t.kind === "nemo") };
  const results = {};
  for (const t of selected) {
    const started = Date.now();
    const extra =
      cfg.extra && t.kind !== "nemo"
        ? {
            batch: cfg.extra.batch,
            maxRounds: cfg.extra.maxRounds,
            seconds: extraAllowance({ minSeconds: cfg.extra.minSeconds, left: shared.left }),
          }
        : undefined;
    const tools = { measureBlocks, perRoundRatios, summarizeRatios };
    try {
      if (t.kind === "tool") results[t.key] = await toolPair(t, { ...cfg.tool, api, extra });
      else if (t.kind === "peer") results[t.key] = await openinferencePair(t, { ...cfg.tool, api, extra });
      else if (t.kind === "nemo") results[t.key] = await nemoPair(t, { ...cfg.nemo, extra: cfg.extra }, shared);
      else {
        const { rule, more } = extraFor(t, { extra }, (ratios) => ratios);
        const measure = t.kind === "growth" ? measureGrowthPair : measureAi7Pair;
        results[t.key] = { ...(await measure(t, { ...cfg[t.kind], api }, { ...tools, more })), extra: rule?.outcome() };
      }
    } catch (error) {
      results[t.key] = { limit: t.limit, notMeasured: `failed: ${error?.message ?? error}` };
    }
    if (extra) shared.left -= results[t.key].extra?.seconds ?? 0;
    results[t.key].seconds = (Date.now() - started) / 1000;
    process.stderr.write(`targets: ${t.key} in ${results[t.key].seconds.toFixed(1)} s\n`);
  }
  return { config: { tool: cfg.tool, growth: cfg.growth, ai7: cfg.ai7, nemo: cfg.nemo, extra: cfg.extra }, results };
}

const times = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "n/a");
const micros = (ns) => (Number.isFinite(ns) ? `${Math.round(ns / 1000)} µs` : "n/a");

/** The growth row's detail: each side's own growth and added CPU per turn (medians over rounds). */
function growthDetail(g) {
  if (!g?.detail) return [];
  const { growth, addedPerTurn } = g.detail;
  const side = (name, key) =>
    `${name} ${times(growth[key].median)} (interval ${times(growth[key].lo)}–${times(growth[key].hi)}, ${growth[key].rounds} readable rounds; ` +
    `added CPU per turn ${micros(addedPerTurn[key][5])} at 5 turns, ${micros(addedPerTurn[key][50])} at 50)`;
  return [`growth 50 / 5 turns on its own: ${side("relaytrace", "relaytrace")}; ${side("ai 7 + @ai-sdk/otel", "ai7")}.`];
}

export function formatTargets(r) {
  const rows = TARGETS.filter((t) => r.results[t.key]).map((t) => targetRow(t.label, r.results[t.key]));
  const c = r.config;
  const extra = c.extra
    ? `A pair whose interval holds its target adds rounds, ${c.extra.batch} at a time, until it does not ("+N; decided"), ` +
      `up to ${c.extra.maxRounds} rounds ("rounds cap") and as much extra time as its first rounds took, at least ${c.extra.minSeconds} s, ` +
      `within ${c.extra.seconds} s for the whole table ("time budget").`
    : "No extra rounds.";
  return [
    table(
      [
        "pair (same run, interleaved, gc between blocks)",
        "median of per-round ratios",
        "95 % interval of the median",
        "rounds",
        "target",
        "verdict",
      ],
      rows,
    ),
    "",
    ...growthDetail(r.results.growth),
    `tool pairs: ${c.tool.rounds} rounds × ${c.tool.calls} calls per side after ${c.tool.warmupCalls} warm-up` +
      (c.ai7 ? `; ai 7 pair: ${c.ai7.rounds} rounds of 4 blocks × ${c.ai7.runs} runs` : "") +
      (c.growth
        ? `; growth pair: ${c.growth.rounds} rounds of 8 blocks (${c.growth.runs50} 50-turn or ${c.growth.runs5} 5-turn runs each)`
        : "") +
      (c.nemo
        ? `; NeMo Relay rows: one Node 24 child, ${c.nemo.rounds} rounds of ${c.nemo.calls} relaytrace and ${c.nemo.nemoCalls} NeMo Relay calls per block`
        : "") +
      ". Wall pairs time the calls; CPU pairs include the flush. A round in which a side's added CPU is ≤ 0 is below the noise and unreadable. " +
      "The interval is the median's distribution-free 95 % confidence interval (order statistics; min–max under 6 rounds, its coverage given). " +
      extra,
  ].join("\n");
}
