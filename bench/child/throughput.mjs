// §4 One throughput/memory case in its own process (run with --expose-gc and --max-old-space-size).
// argv: <json {mode: "atof" | "otelStalled", calls}>. Prints one JSON line.
import path from "node:path";
import { rm } from "node:fs/promises";
import { loadRelaytrace } from "../lib/load.mjs";
import { tempDir } from "../lib/variants.mjs";
import { StalledSpanExporter, TOOL_ARGS, TOOL_NAME, toolFn } from "../lib/workload.mjs";

const { mode, calls } = JSON.parse(process.argv[2]);
const api = await loadRelaytrace();
const runtime = api.createRuntime();
const dir = await tempDir();
let exporter;
if (mode === "atof") {
  exporter = new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl"), mode: "overwrite" });
} else {
  exporter = new api.OtelExporter({
    projection: "full",
    spanExporter: new StalledSpanExporter(),
    timeoutMillis: 200,
    scheduledDelayMillis: 50,
  });
}
exporter.register(runtime);

let events = 0;
runtime.subscribe("count", () => void events++);
const samples = [];
let peakRss = 0;
const sampleEvery = Math.max(1, Math.floor(calls / 20));
globalThis.gc?.();
const rssStart = process.memoryUsage().rss;
const t0 = process.hrtime.bigint();
for (let i = 1; i <= calls; i++) {
  await runtime.executeTool(TOOL_NAME, TOOL_ARGS, toolFn, { toolCallId: `call_${i}` });
  // Let exporter I/O run every 1,000 calls, as it would between real tool calls.
  if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
  if (i % sampleEvery === 0) {
    const rss = process.memoryUsage().rss;
    if (rss > peakRss) peakRss = rss;
    samples.push({ calls: i, rssMiB: rss / 1048576 });
  }
}
await runtime.flush();
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
await runtime.shutdown();
const diagnostics = runtime.diagnostics();
await rm(dir, { recursive: true, force: true });
const dropped = diagnostics.filter((d) => /drop|overflow|not_exported|export_failed/.test(d.code)).reduce((n, d) => n + d.count, 0);
const half = samples.filter((s) => s.calls <= calls / 2);
process.stdout.write(
  JSON.stringify({
    mode,
    calls,
    events,
    seconds,
    eventsPerSecond: events / seconds,
    rssStartMiB: rssStart / 1048576,
    peakRssMiB: peakRss / 1048576,
    rssAtHalfMiB: half.length ? half[half.length - 1].rssMiB : NaN,
    rssAtEndMiB: samples.length ? samples[samples.length - 1].rssMiB : NaN,
    dropped,
    diagnostics,
  }) + "\n",
);
