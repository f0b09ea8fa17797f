// §3 Agent loop: a 5-turn run, 3 tools per turn, against a loopback scripted provider with a fixed
// 1 ms reply delay; tracing off (no subscriber) vs all exporters on, and each exporter alone, runs
// interleaved.
import { spawn } from "node:child_process";
import path from "node:path";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { NoopSpanExporter } from "../lib/workload.mjs";
import { tempDir } from "../lib/variants.mjs";
import { median, p95 } from "../lib/stats.mjs";
import { pct, table, verdict } from "../lib/format.mjs";

const TOOLS = ["weather", "calendar", "search"];

async function startProvider() {
  const file = fileURLToPath(new URL("../child/provider.mjs", import.meta.url));
  const child = spawn(process.execPath, [file, JSON.stringify({ delayMs: 1, toolTurns: 5, toolsPerTurn: 3, tools: TOOLS })], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]).port);
    });
    child.on("exit", (code) => reject(new Error(`provider exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => (child.on("exit", r), child.stdin.end())) };
}

const EXPORTERS = ["atof", "atif", "full", "openinference", "gen_ai"];
const LABELS = {
  off: "off (no subscriber)",
  on: "on (ATOF file + ATIF + 3 OTel projections)",
  atof: "ATOF file exporter alone",
  atif: "ATIF exporter alone",
  full: "OTel full projection alone",
  openinference: "OTel openinference projection alone",
  gen_ai: "OTel gen_ai projection alone",
};

async function makeSetup(api, baseUrl, exporters) {
  const runtime = api.createRuntime();
  let dir;
  if (exporters.length > 0) dir = await tempDir();
  for (const exporter of exporters) {
    if (exporter === "atof") new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl") }).register(runtime);
    else if (exporter === "atif") new api.AtifExporter({ outputDirectory: dir, agent: { name: "bench", version: "1" } }).register(runtime);
    else new api.OtelExporter({ projection: exporter, spanExporter: new NoopSpanExporter(), scheduledDelayMillis: 200 }).register(runtime);
  }
  const tools = TOOLS.map((name) =>
    api.defineTool({
      name,
      description: `${name} lookup`,
      inputSchema: { type: "object", properties: { city: { type: "string" }, day: { type: "number" } }, required: ["city"] },
      execute: (args) => ({ result: { name, city: args.city, value: 21 } }),
    }),
  );
  const toolkit = await api.createToolkit({ tools });
  const client = api.createClient({ baseUrl, style: "openai", model: "stub", apiKey: "sk-bench", runtime, maxTurns: 10 });
  return {
    runtime,
    run: () => client.run("What is the weather?", { toolkit }),
    close: async () => {
      await runtime.shutdown();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function runLoop(api, cfg) {
  const provider = await startProvider();
  const variants = ["off", "on", ...(cfg.perExporter === false ? [] : EXPORTERS)];
  const setups = {};
  for (const name of variants) setups[name] = await makeSetup(api, provider.url, name === "off" ? [] : name === "on" ? EXPORTERS : [name]);
  const times = Object.fromEntries(variants.map((v) => [v, []]));
  // One fresh monitor per block: a re-enabled monitor counts the whole disabled gap as one delay.
  const lag = Object.fromEntries(variants.map((v) => [v, []]));
  let badRuns = 0;
  try {
    for (const name of variants) for (let i = 0; i < cfg.warmupRuns; i++) await setups[name].run();
    for (let r = 0; r < cfg.rounds; r++) {
      const order = variants.slice(r % variants.length).concat(variants.slice(0, r % variants.length));
      for (const name of order) {
        const monitor = monitorEventLoopDelay({ resolution: 1 });
        monitor.enable();
        for (let i = 0; i < cfg.runsPerRound; i++) {
          const t0 = process.hrtime.bigint();
          const result = await setups[name].run();
          times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (result.status !== "done" || result.toolCalls.length !== 15) badRuns++;
        }
        monitor.disable();
        lag[name].push(monitor.percentile(99) / 1e6);
        await setups[name].runtime.flush();
      }
    }
  } finally {
    for (const name of variants) await setups[name].close();
    await provider.close();
  }
  const off = median(times.off);
  const on = median(times.on);
  const result = {
    config: cfg,
    runs: { ...Object.fromEntries(variants.map((v) => [v, times[v].length])), notAsScripted: badRuns },
    wallMs: Object.fromEntries(variants.map((v) => [v, { median: median(times[v]), p95: p95(times[v]) }])),
    eventLoopLagP99Ms: Object.fromEntries(variants.map((v) => [v, median(lag[v])])),
    addedMsPerRun: on - off,
    addedPercent: ((on - off) / off) * 100,
  };
  result.target = { target: "< 2 % added wall time per run", value: result.addedPercent, met: result.addedPercent < 2 };
  return result;
}

export function formatLoop(r) {
  const off = r.wallMs.off.median;
  const rows = Object.keys(r.wallMs).map((v) => {
    const w = r.wallMs[v];
    return [LABELS[v] ?? v, r.runs[v], w.median.toFixed(2), w.p95.toFixed(2), v === "off" ? "—" : (w.median - off).toFixed(2), v === "off" ? "—" : pct(((w.median - off) / off) * 100), r.eventLoopLagP99Ms[v].toFixed(2)];
  });
  return [
    table(["tracing", "runs", "median ms/run", "p95 ms/run", "added ms/run", "added", "event-loop lag p99 ms (median of blocks)"], rows),
    "",
    table(
      ["target", "added ms/run", "added", "verdict"],
      [[r.target.target, r.addedMsPerRun.toFixed(3), pct(r.addedPercent), verdict(r.target.met)]],
    ),
    r.runs.notAsScripted ? `WARNING: ${r.runs.notAsScripted} run(s) did not finish as scripted` : "",
  ].join("\n");
}
