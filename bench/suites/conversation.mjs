// §3b Long conversation: 50 LLM calls in one run whose context grows to ~200 KB (each turn adds
// an assistant message with ~2 KB of text and a ~2 KB tool result), loopback provider in its own
// process. Tracing on (ATOF file + ATIF + OTel openinference) and off, runs interleaved. The CPU
// of each turn is read at the loop's `beforeLLM` hook (the same hook in both), so a turn's segment
// runs from its LLM request to the next one: that call, its one tool call and the delivery of
// their events. Tracing CPU per turn (median on − median off) over that call's request + response
// body bytes must stay flat as the conversation grows. With --expose-gc an untimed heap phase
// follows: `heapRuns` more traced runs, the heap read after a full gc each (all three exporters
// flushed); bounded means it stops growing once the exporters' retained state is full.
import { median } from "../lib/stats.mjs";
import { table } from "../lib/format.mjs";
import { LOOP_VARIANTS, makeLoopSetup, startProvider } from "./loop.mjs";

const TURNS = 50;
const CHUNK_BYTES = 2_000;
const NOTE = "Tool output kept in the conversation so that the context grows turn by turn. ".repeat(30).slice(0, CHUNK_BYTES);
/** Turn buckets reported (1-based, inclusive): around turns 1, 10, 25 and 50. */
export const BUCKETS = [
  [1, 5],
  [8, 12],
  [23, 27],
  [46, 50],
];
/**
 * Flat: no later bucket's tracing CPU per body byte exceeds this many times the first bucket's.
 * A fixed per-call cost makes small early calls dearer per byte, so per-byte cost falling is
 * expected; growing means some work is worse than linear in the context (a body copied or
 * serialized once per earlier turn, per exporter, ...). The marginal column (extra CPU per extra
 * byte from one bucket to the next) shows the same from the other side.
 */
export const FLAT_LIMIT = 1.5;

export const CONVERSATION_TOOL = {
  name: "notes",
  description: "Returns the trip notes for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" }, day: { type: "number" } }, required: ["city"] },
  execute: (args) => ({ result: { city: args.city, day: args.day, notes: NOTE } }),
};

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function conversationSetup(api, url, exporters) {
  const marks = [];
  const setup = await makeLoopSetup(api, url, exporters, {
    tools: [CONVERSATION_TOOL],
    maxTurns: TURNS + 5,
    hooks: { beforeLLM: () => void marks.push(cpuMicros()) },
  });
  return {
    ...setup,
    /** One conversation; returns the CPU µs of each turn's segment (the last ends when the run returns). */
    runTurns: async () => {
      marks.length = 0;
      const result = await setup.run("Plan the trip, one city note at a time.");
      marks.push(cpuMicros());
      const flushFrom = cpuMicros();
      await setup.runtime.flush();
      const flushUs = cpuMicros() - flushFrom;
      const segments = marks.slice(1).map((m, i) => m - marks[i]);
      return { segments, flushUs, ok: result.status === "done" && segments.length === TURNS };
    },
  };
}

export async function runConversation(api, cfg) {
  const provider = await startProvider({
    delayMs: 1,
    toolTurns: TURNS - 1,
    toolsPerTurn: 1,
    tools: [CONVERSATION_TOOL.name],
    assistantTextBytes: CHUNK_BYTES,
  });
  const names = ["off", "target"];
  const setups = {};
  const perTurn = { off: [], target: [] };
  const flush = { off: [], target: [] };
  /** Heap used after each traced run, its flush and a full gc (bytes); empty without --expose-gc. */
  const heapAfterRuns = [];
  let badRuns = 0;
  try {
    for (const name of names) setups[name] = await conversationSetup(api, provider.url, LOOP_VARIANTS[name]);
    for (const name of names) for (let i = 0; i < cfg.warmupRuns; i++) await setups[name].runTurns();
    for (let r = 0; r < cfg.rounds; r++) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const run = await setups[name].runTurns();
        if (!run.ok) badRuns++;
        perTurn[name].push(run.segments);
        flush[name].push(run.flushUs);
      }
    }
    // Heap phase, untimed: more traced runs, a full gc after each (the exporters' retained state,
    // e.g. ATIF's kept trajectories, fills up to its bounds within them).
    for (let i = 0; i < (cfg.heapRuns ?? 0) && typeof globalThis.gc === "function"; i++) {
      if (!(await setups.target.runTurns()).ok) badRuns++;
      globalThis.gc();
      heapAfterRuns.push(process.memoryUsage().heapUsed);
    }
  } finally {
    for (const name of names) await setups[name]?.close();
  }
  const sizes = await provider.sizes();
  await provider.close();
  // Per turn: median CPU over the runs, tracing on minus off.
  const turnMedian = (name, t) => median(perTurn[name].map((segments) => segments[t]).filter((v) => v !== undefined));
  const turns = Array.from({ length: TURNS }, (_, t) => {
    const [requestBytes, responseBytes] = sizes[t] ?? [NaN, NaN];
    return { turn: t + 1, requestBytes, responseBytes, offUs: turnMedian("off", t), onUs: turnMedian("target", t) };
  });
  const buckets = BUCKETS.map(([from, to]) => {
    const inBucket = turns.slice(from - 1, to);
    const addedUs = inBucket.reduce((n, t) => n + (t.onUs - t.offUs), 0);
    const bytes = inBucket.reduce((n, t) => n + t.requestBytes + t.responseBytes, 0);
    return {
      from,
      to,
      meanBodyBytes: bytes / inBucket.length,
      addedUsPerCall: addedUs / inBucket.length,
      addedNsPerByte: (addedUs * 1000) / bytes,
    };
  });
  buckets.forEach((b, i) => {
    if (i > 0)
      b.marginalNsPerByte = ((b.addedUsPerCall - buckets[i - 1].addedUsPerCall) * 1000) / (b.meanBodyBytes - buckets[i - 1].meanBodyBytes);
  });
  const first = buckets[0].addedNsPerByte;
  const worstLater = Math.max(...buckets.slice(1).map((b) => b.addedNsPerByte));
  // A first bucket at or below zero is lost in the noise of the run: no ratio can be read from it.
  const readable = first > 0;
  const target = {
    target: `tracing CPU per body byte flat over 50 turns: every later bucket ≤ ${FLAT_LIMIT}× turns 1–5`,
    value: readable ? worstLater / first : NaN,
    met: readable ? worstLater / first <= FLAT_LIMIT : undefined,
    note: readable ? undefined : "the first bucket's added CPU is ≤ 0 (below this run's noise): no verdict",
  };
  return {
    config: cfg,
    runs: perTurn.target.length,
    notAsScripted: badRuns,
    lastRequestBytes: turns[TURNS - 1].requestBytes,
    flushUs: { off: median(flush.off), target: median(flush.target) },
    heap: heapSummary(heapAfterRuns),
    turns,
    buckets,
    target,
  };
}

/**
 * Heap after the first run of the heap phase, after the last, and the growth per run over its
 * second half (a least-squares slope, so one noisy reading does not decide it): bounded retention
 * shows as a slope near the untraced loop's. Undefined without gc.
 */
function heapSummary(heap) {
  if (heap.length < 4) return undefined;
  const tail = heap.slice(Math.floor(heap.length / 2));
  const n = tail.length;
  const meanX = (n - 1) / 2;
  const meanY = tail.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  tail.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  return { runs: heap.length, firstBytes: heap[0], lastBytes: heap[heap.length - 1], slopeBytesPerRun: num / den };
}

const kb = (b) => (b / 1000).toFixed(1);
const mib = (b) => (b / 1024 / 1024).toFixed(1);

function heapLine(h) {
  if (!h) return "heap per run: not measured (run with --expose-gc)";
  return (
    `heap after a full gc, ATOF + ATIF + OTel openinference flushed: ${mib(h.firstBytes)} MiB after heap-phase run 1, ` +
    `${mib(h.lastBytes)} MiB after run ${h.runs}; growth over the second half ${(h.slopeBytesPerRun / 1024).toFixed(1)} KiB per 50-turn run`
  );
}

export function formatConversation(r) {
  return [
    `${r.runs} runs per variant; the last request carries ${kb(r.lastRequestBytes)} KB of context; end-of-run flush CPU: ${(r.flushUs.target / 1000).toFixed(2)} ms traced, ${(r.flushUs.off / 1000).toFixed(2)} ms untraced (not in the turns).`,
    table(
      [
        "turns",
        "mean body KB per call (request + response)",
        "added tracing CPU µs per call",
        "added ns per body byte",
        "marginal ns per extra byte (from previous bucket)",
      ],
      r.buckets.map((b) => [
        `${b.from}–${b.to}`,
        kb(b.meanBodyBytes),
        b.addedUsPerCall.toFixed(1),
        b.addedNsPerByte.toFixed(2),
        b.marginalNsPerByte === undefined ? "—" : b.marginalNsPerByte.toFixed(2),
      ]),
    ),
    "",
    `worst later bucket's added ns per body byte / turns 1–5: ${Number.isFinite(r.target.value) ? r.target.value.toFixed(2) : "n/a"}×`,
    heapLine(r.heap),
    r.notAsScripted ? `WARNING: ${r.notAsScripted} run(s) did not finish as scripted` : "",
  ].join("\n");
}
