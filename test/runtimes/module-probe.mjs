// Runs one scenario against the BUILT package and prints one JSON line: every package and every
// file of the package's dist/ that Node loaded, the Node built-ins loaded through the module loader
// (an import or a require; process.getBuiltinModule does not pass it), Node's own internal modules
// of its bundled undici (process.moduleLoadList), and the diagnostics of the exporter it made (if any).
//   node test/runtimes/module-probe.mjs <scenario> [OTLP base URL] [--missing=<package>,...]
// --missing makes those packages fail to resolve, as if they were not installed.
// Scenarios: relaytrace, exporters (import only), define-tool (import relaytrace, then define a tool
// with a JSON Schema and call it with invalid arguments; also reports the packages loaded at import
// and the tool's result), otel-protobuf, otel-json, otel-logs, otel-metrics-json,
// otel-shutdown (an OtelExporter with logs and metrics, marks and an llm call made at once, then
// runtime.shutdown() with no flush before it).
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const [scenario, base] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const missing = new Set(
  process.argv
    .find((a) => a.startsWith("--missing="))
    ?.slice(10)
    .split(",") ?? [],
);

const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    if ([...missing].some((name) => specifier === name || specifier.startsWith(`${name}/`)))
      throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" });
    return next(specifier, context);
  },
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});

const PACKAGE_DIR = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/** Every package Node has loaded a file of so far, sorted. */
function loadedPackages() {
  const packages = new Set();
  for (const url of loaded) if (url.startsWith("file:")) packages.add(PACKAGE_DIR.exec(fileURLToPath(url))?.[1]);
  packages.delete(undefined);
  return [...packages].sort();
}

function report(exporter, extra = {}) {
  const files = new Set();
  for (const url of loaded) {
    if (!url.startsWith("file:")) continue;
    const path = fileURLToPath(url);
    if (!PACKAGE_DIR.test(path) && path.startsWith(`${ROOT}dist/`)) files.add(path.slice(ROOT.length));
  }
  const diagnostics = exporter ? exporter.diagnostics().map((d) => ({ code: d.code, message: d.message, count: d.count })) : [];
  const builtins = [...new Set([...loaded].filter((url) => url.startsWith("node:")))].sort();
  const nodeInternals = process.moduleLoadList.filter((m) => m.includes("undici")).sort();
  console.log(JSON.stringify({ packages: loadedPackages(), files: [...files].sort(), builtins, nodeInternals, diagnostics, ...extra }));
}

if (scenario === "relaytrace") {
  await import("../../dist/src/index.js");
  report();
} else if (scenario === "define-tool") {
  const { defineTool } = await import("../../dist/src/index.js");
  const packagesAtImport = loadedPackages();
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    execute: ({ a, b }) => String(a + b),
  });
  const toolResult = await add.execute({ a: 1, b: "two" });
  report(undefined, { packagesAtImport, toolResult });
} else if (scenario === "exporters") {
  await import("../../dist/exporters/index.js");
  report();
} else {
  const { createRuntime } = await import("../../dist/src/index.js");
  const { OtelExporter } = await import("../../dist/exporters/index.js");
  const options = {
    "otel-protobuf": {},
    "otel-json": { protocol: "http/json" },
    "otel-logs": { logs: true },
    "otel-metrics-json": { protocol: "http/json", metrics: true },
    "otel-shutdown": { logs: true, metrics: true },
  }[scenario];
  if (options === undefined) throw new Error(`unknown scenario ${scenario}`);
  const runtime = createRuntime();
  const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${base}/v1/traces`, ...options });
  exporter.register(runtime);
  // Everything below runs before the exporter's SDK parts can have loaded (an import() resolves
  // on a later turn at the earliest): these events wait for them.
  await runtime.withScope(
    "agent",
    async () => {
      runtime.mark("checkpoint", { data: { step: 1 } });
      runtime.metric("queue", [{ kind: "gauge", valueType: "i64", name: "queue.depth", value: 3 }]);
      await runtime.executeLlm("chat", { content: { model: "m", messages: [] } }, () => ({ model: "m", usage: { prompt_tokens: 2 } }), {
        modelName: "m",
      });
    },
    { category: "agent" },
  );
  if (scenario === "otel-shutdown") await runtime.shutdown();
  else await runtime.forceFlush();
  report(exporter);
}
