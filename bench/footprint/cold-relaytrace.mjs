// One cold start of relaytrace: import, a runtime with an OtelExporter sending OTLP/HTTP protobuf
// to the loopback receiver (argv[2]), one tool call, forceFlush. Prints the times as one JSON line.
// argv[3]: the relaytrace package to start, an installed one or a built checkout (default: this checkout).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const root = pathToFileURL(`${process.argv[3] ?? new URL("../..", import.meta.url).pathname}/`);
// The files its package.json `exports` name, as `import "relaytrace"` would load them.
const exportsField = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).exports;
const entry = (name) => new URL(exportsField[name].default, root).href;
const started = performance.now();
const { createRuntime } = await import(entry("."));
const { OtelExporter } = await import(entry("./exporters"));
const imported = performance.now();
const runtime = createRuntime();
const exporter = new OtelExporter({ projection: "gen_ai", endpoint: process.argv[2] });
exporter.register(runtime);
await runtime.executeTool("lookup_weather", { city: "Paris" }, (args) => ({ result: { city: args.city, sky: "sunny" } }));
await runtime.forceFlush();
const flushed = performance.now();
const failed = exporter.diagnostics().length > 0;
console.log(JSON.stringify({ importMs: imported - started, totalMs: flushed - started, sinceProcessStartMs: flushed, failed }));
process.exit(0);
