// §3 Agent loop: a 5-turn run, 3 tools per turn, against a loopback scripted provider with a fixed
// 1 ms reply delay; tracing off (no subscriber) vs exporters on, runs interleaved. Wall time and
// process CPU time (`process.cpuUsage()`, the provider runs in its own process) per run; the
// added CPU per traced event is (CPU on − CPU off) / events delivered per run.
import { spawn } from "node:child_process";
import path from "node:path";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { NoopSpanExporter } from "../lib/workload.mjs";
import { tempDir } from "../lib/variants.mjs";
import { median, p95 } from "../lib/stats.mjs";
import { pct, table } from "../lib/format.mjs";

const TOOLS = ["weather", "calendar", "search"];
export const LOOP_CPU_TARGET_US = 30;

/**
 * A scripted provider in its own process; `script` is passed to bench/child/provider.mjs.
 * `sizes()` resolves with [requestBytes, responseBytes] of the latest request of each turn.
 */
export async function startProvider(script = { delayMs: 1, toolTurns: 5, toolsPerTurn: 3, tools: TOOLS }) {
  const file = fileURLToPath(new URL("../child/provider.mjs", import.meta.url));
  const child = spawn(process.execPath, [file, JSON.stringify(script)], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = [];
  const waiting = [];
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
    for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
      const line = JSON.parse(out.slice(0, nl));
      out = out.slice(nl + 1);
      if (waiting.length) waiting.shift()(line);
      else lines.push(line);
    }
  });
  const nextLine = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve)));
  const { port } = await Promise.race([
    nextLine(),
    new Promise((_, reject) => child.on("exit", (code) => reject(new Error(`provider exited with ${code}`)))),
  ]);
  return {
    url: `http://127.0.0.1:${port}`,
    sizes: async () => (child.stdin.write("sizes\n"), (await nextLine()).sizes),
    close: () => new Promise((r) => (child.on("exit", r), child.stdin.end())),
  };
}

const EXPORTERS = ["atof", "atif", "full", "openinference", "gen_ai"];
const SUBSCRIBER_ONLY = "subscriber";
/** Which exporters each variant registers. */
export const LOOP_VARIANTS = {
  off: [],
  on: EXPORTERS,
  target: ["atof", "atif", "openinference"],
  atof: ["atof"],
  atif: ["atif"],
  full: ["full"],
  openinference: ["openinference"],
  gen_ai: ["gen_ai"],
  // No exporter: only the counting subscriber every traced variant has, so every event is built,
  // copied and delivered. What each exporter row costs beyond this is that exporter's own work.
  subscriber: [SUBSCRIBER_ONLY],
};
const LABELS = {
  off: "off (no subscriber)",
  on: "on (ATOF file + ATIF + 3 OTel projections)",
  target: "ATOF file + ATIF + OTel openinference (issue #17's set)",
  atof: "ATOF file exporter alone",
  atif: "ATIF exporter alone",
  full: "OTel full projection alone",
  openinference: "OTel openinference projection alone",
  gen_ai: "OTel gen_ai projection alone",
  subscriber: "one no-op subscriber, no exporter (events built and delivered)",
};

/**
 * A runtime with `exporters`, a client on `baseUrl` and a toolkit (default: the bench's three
 * lookup tools). Counts delivered events. The OTel projections export to `spanExporter` (default:
 * a no-op exporter of their own).
 */
export async function makeLoopSetup(api, baseUrl, exporters, { tools: toolDefinitions, spanExporter, ...clientOptions } = {}) {
  const runtime = api.createRuntime();
  let dir;
  if (exporters.length > 0) dir = await tempDir();
  for (const exporter of exporters) {
    if (exporter === "atof") new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl") }).register(runtime);
    else if (exporter === "atif") new api.AtifExporter({ outputDirectory: dir, agent: { name: "bench", version: "1" } }).register(runtime);
    else if (exporter === SUBSCRIBER_ONLY)
      continue; // the counting subscriber below is the only one
    else
      new api.OtelExporter({
        projection: exporter,
        spanExporter: spanExporter ?? new NoopSpanExporter(),
        scheduledDelayMillis: 200,
      }).register(runtime);
  }
  const counted = { events: 0, runs: 0 };
  // Counts what the exporters receive; a variant without exporters has no subscriber at all.
  if (exporters.length > 0) runtime.subscribe("bench-count", () => void counted.events++);
  const tools =
    toolDefinitions?.map((d) => api.defineTool(d)) ??
    TOOLS.map((name) =>
      api.defineTool({
        name,
        description: `${name} lookup`,
        inputSchema: { type: "object", properties: { city: { type: "string" }, day: { type: "number" } }, required: ["city"] },
        execute: (args) => ({ result: { name, city: args.city, value: 21 } }),
      }),
    );
  const toolkit = await api.createToolkit({ tools });
  const client = api.createClient({ baseUrl, style: "openai", model: "stub", apiKey: "sk-bench", runtime, maxTurns: 10, ...clientOptions });
  return {
    runtime,
    counted,
    client,
    toolkit,
    run: (prompt = "What is the weather?", options = {}) => (counted.runs++, client.run(prompt, { toolkit, ...options })),
    close: async () => {
      await runtime.shutdown();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

const cpuMicros = (u) => u.user + u.system;

/**
 * Runs the named loop variants of each build interleaved (rounds × runsPerRound runs, order
 * rotating). builds: [{ key, api }]; result keys are `${key}.${variant}` with more than one build.
 * Returns per key: wall ms and CPU µs of every run, events per run, event-loop lag per block.
 */
export async function runLoopVariants(builds, names, cfg) {
  const provider = await startProvider();
  const keys = [];
  const setups = {};
  try {
    for (const build of builds) {
      for (const name of names) {
        const key = builds.length > 1 ? `${build.key}.${name}` : name;
        keys.push(key);
        setups[key] = await makeLoopSetup(build.api, provider.url, LOOP_VARIANTS[name]);
      }
    }
    const out = Object.fromEntries(keys.map((k) => [k, { wallMs: [], cpuUs: [], lagMs: [] }]));
    let badRuns = 0;
    for (const key of keys) for (let i = 0; i < cfg.warmupRuns; i++) await setups[key].run();
    for (let r = 0; r < cfg.rounds; r++) {
      const order = keys.slice(r % keys.length).concat(keys.slice(0, r % keys.length));
      for (const key of order) {
        // One fresh monitor per block: a re-enabled monitor counts the whole disabled gap as one delay.
        const monitor = monitorEventLoopDelay({ resolution: 1 });
        monitor.enable();
        for (let i = 0; i < cfg.runsPerRound; i++) {
          const c0 = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          const result = await setups[key].run();
          // Delivery and exporter work of this run belong to it: flush before reading the clocks.
          await setups[key].runtime.flush();
          out[key].wallMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
          out[key].cpuUs.push(cpuMicros(process.cpuUsage(c0)));
          if (result.status !== "done" || result.toolCalls.length !== 15) badRuns++;
        }
        monitor.disable();
        out[key].lagMs.push(monitor.percentile(99) / 1e6);
      }
    }
    for (const key of keys) {
      await setups[key].runtime.flush();
      out[key].eventsPerRun = setups[key].counted.events / setups[key].counted.runs;
    }
    return { byKey: out, badRuns };
  } finally {
    for (const key of keys) await setups[key]?.close();
    await provider.close();
  }
}

/** Added CPU per traced event of `on` over `off`: difference of the medians of CPU per run, over events per run. */
export function cpuPerEventUs(on, off) {
  return (median(on.cpuUs) - median(off.cpuUs)) / on.eventsPerRun;
}

export async function runLoop(api, cfg) {
  const variants = ["off", "on", "target", ...(cfg.perExporter === false ? [] : [...EXPORTERS, SUBSCRIBER_ONLY])];
  const { byKey, badRuns } = await runLoopVariants([{ key: "relaytrace", api }], variants, cfg);
  const off = byKey.off;
  const offWall = median(off.wallMs);
  const result = {
    config: cfg,
    runs: { ...Object.fromEntries(variants.map((v) => [v, byKey[v].wallMs.length])), notAsScripted: badRuns },
    wallMs: Object.fromEntries(variants.map((v) => [v, { median: median(byKey[v].wallMs), p95: p95(byKey[v].wallMs) }])),
    cpuUs: Object.fromEntries(variants.map((v) => [v, { median: median(byKey[v].cpuUs), p95: p95(byKey[v].cpuUs) }])),
    eventsPerRun: Object.fromEntries(variants.map((v) => [v, byKey[v].eventsPerRun])),
    cpuPerEventUs: Object.fromEntries(variants.filter((v) => v !== "off").map((v) => [v, cpuPerEventUs(byKey[v], off)])),
    eventLoopLagP99Ms: Object.fromEntries(variants.map((v) => [v, median(byKey[v].lagMs)])),
  };
  result.addedMsPerRun = result.wallMs.on.median - offWall;
  result.addedPercent = (result.addedMsPerRun / offWall) * 100;
  const perEvent = result.cpuPerEventUs.target;
  result.target = {
    target: `ATOF + ATIF + OTel openinference: added CPU ≤ ${LOOP_CPU_TARGET_US} µs per traced event`,
    value: perEvent,
    met: perEvent <= LOOP_CPU_TARGET_US,
  };
  return result;
}

export function formatLoop(r) {
  const off = r.wallMs.off.median;
  const rows = Object.keys(r.wallMs).map((v) => {
    const w = r.wallMs[v];
    const c = r.cpuUs[v];
    return [
      LABELS[v] ?? v,
      r.runs[v],
      w.median.toFixed(2),
      w.p95.toFixed(2),
      v === "off" ? "—" : pct(((w.median - off) / off) * 100),
      (c.median / 1000).toFixed(2),
      v === "off" ? "—" : String(Math.round(r.eventsPerRun[v])),
      v === "off" ? "—" : r.cpuPerEventUs[v].toFixed(1),
      r.eventLoopLagP99Ms[v].toFixed(2),
    ];
  });
  return [
    table(
      [
        "tracing",
        "runs",
        "median wall ms/run",
        "p95 wall ms/run",
        "added wall",
        "median CPU ms/run",
        "events/run",
        "added CPU µs/event",
        "event-loop lag p99 ms",
      ],
      rows,
    ),
    "",
    `added CPU per traced event, ATOF + ATIF + OTel openinference: ${r.target.value.toFixed(1)} µs (detail; verdicts: targets table)`,
    r.runs.notAsScripted ? `WARNING: ${r.runs.notAsScripted} run(s) did not finish as scripted` : "",
  ].join("\n");
}
