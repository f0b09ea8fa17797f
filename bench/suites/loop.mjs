// §3 Agent loop: a 5-turn run, 3 tools per turn, against a loopback scripted provider with a fixed
// 1 ms reply delay; tracing off (no subscriber) vs all exporters on, runs interleaved.
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

async function makeSetup(api, baseUrl, traced) {
  const runtime = api.createRuntime();
  let dir;
  if (traced) {
    dir = await tempDir();
    new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl") }).register(runtime);
    new api.AtifExporter({ outputDirectory: dir, agent: { name: "bench", version: "1" } }).register(runtime);
    for (const projection of ["full", "openinference", "gen_ai"]) {
      new api.OtelExporter({ projection, spanExporter: new NoopSpanExporter(), scheduledDelayMillis: 200 }).register(runtime);
    }
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
  const setups = { off: await makeSetup(api, provider.url, false), on: await makeSetup(api, provider.url, true) };
  const times = { off: [], on: [] };
  const lag = { off: monitorEventLoopDelay({ resolution: 1 }), on: monitorEventLoopDelay({ resolution: 1 }) };
  let badRuns = 0;
  try {
    for (const name of ["off", "on"]) for (let i = 0; i < cfg.warmupRuns; i++) await setups[name].run();
    for (let r = 0; r < cfg.rounds; r++) {
      for (const name of r % 2 ? ["on", "off"] : ["off", "on"]) {
        lag[name].enable();
        for (let i = 0; i < cfg.runsPerRound; i++) {
          const t0 = process.hrtime.bigint();
          const result = await setups[name].run();
          times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (result.status !== "done" || result.toolCalls.length !== 15) badRuns++;
        }
        lag[name].disable();
        await setups[name].runtime.flush();
      }
    }
  } finally {
    await setups.off.close();
    await setups.on.close();
    await provider.close();
  }
  const off = median(times.off);
  const on = median(times.on);
  const result = {
    config: cfg,
    runs: { off: times.off.length, on: times.on.length, notAsScripted: badRuns },
    wallMs: { off: { median: off, p95: p95(times.off) }, on: { median: on, p95: p95(times.on) } },
    addedMsPerRun: on - off,
    addedPercent: ((on - off) / off) * 100,
    eventLoopLagP99Ms: { off: lag.off.percentile(99) / 1e6, on: lag.on.percentile(99) / 1e6 },
  };
  result.target = { target: "< 2 % added wall time per run", value: result.addedPercent, met: result.addedPercent < 2 };
  return result;
}

export function formatLoop(r) {
  return [
    table(
      ["tracing", "runs", "median ms/run", "p95 ms/run", "event-loop lag p99 ms"],
      [
        ["off (no subscriber)", r.runs.off, r.wallMs.off.median.toFixed(2), r.wallMs.off.p95.toFixed(2), r.eventLoopLagP99Ms.off.toFixed(2)],
        ["on (ATOF file + ATIF + 3 OTel projections)", r.runs.on, r.wallMs.on.median.toFixed(2), r.wallMs.on.p95.toFixed(2), r.eventLoopLagP99Ms.on.toFixed(2)],
      ],
    ),
    "",
    table(
      ["target", "added ms/run", "added", "verdict"],
      [[r.target.target, r.addedMsPerRun.toFixed(3), pct(r.addedPercent), verdict(r.target.met)]],
    ),
    r.runs.notAsScripted ? `WARNING: ${r.runs.notAsScripted} run(s) did not finish as scripted` : "",
  ].join("\n");
}
