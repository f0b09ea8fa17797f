// A cold start inside the app's install: `node otel-lean-start.mjs` imports relaytrace and relaytrace/exporters only, sends
// two traces over OTLP/HTTP protobuf to RECEIVER_URL (gzip and a header from the standard
// variables the test sets), and prints what Node loaded on the way: the packages, the built-ins
// that went through the module loader, and Node's internal undici modules.
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const loaded = new Set();
registerHooks({
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});

const { createRuntime } = await import("relaytrace");
const { OtelExporter } = await import("relaytrace/exporters");
const runtime = createRuntime();
const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${process.env["RECEIVER_URL"]}/v1/traces` });
exporter.register(runtime);
for (const city of ["Paris", "Oslo"]) {
  await runtime.executeTool("lookup", { city }, () => ({ result: "sunny" }));
  await runtime.forceFlush();
}
await runtime.shutdown();

const packages = new Map();
for (const url of loaded) {
  if (!url.startsWith("file:")) continue;
  const match = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(fileURLToPath(url));
  if (match && !packages.has(match[2])) packages.set(match[2], JSON.parse(readFileSync(`${match[1]}/package.json`, "utf8")).version);
}
console.log(
  JSON.stringify({
    packages: Object.fromEntries([...packages].sort()),
    builtins: [...loaded].filter((url) => url.startsWith("node:")).sort(),
    nodeInternals: process.moduleLoadList.filter((m) => m.includes("undici")),
    diagnostics: exporter.diagnostics(),
  }),
);
