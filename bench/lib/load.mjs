// Loads the BUILT relaytrace package (run `npm run build` at the repo root first).
// Prefers the public entry points; while they are still being assembled, falls back to the
// modules under dist/ so the harness keeps working. `source` says which was used.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dist = new URL("../../dist/", import.meta.url);

async function tryImport(relative) {
  const url = new URL(relative, dist);
  if (!existsSync(fileURLToPath(url))) return undefined;
  return import(url.href);
}

function pick(modules, name) {
  for (const m of modules) if (m && m[name] !== undefined) return m[name];
  return undefined;
}

export async function loadRelaytrace() {
  const entry = await tryImport("src/index.js");
  const exporterEntry = await tryImport("exporters/index.js");
  const fallbacks = await Promise.all([
    tryImport("src/runtime/runtime.js"),
    tryImport("src/agent/index.js"),
    tryImport("exporters/atof/index.js"),
    tryImport("exporters/otel/index.js"),
    tryImport("exporters/atif/index.js"),
  ]);
  const modules = [entry, exporterEntry, ...fallbacks];
  const names = ["createRuntime", "createClient", "createToolkit", "defineTool", "AtofExporter", "OtelExporter", "AtifExporter"];
  const api = {};
  const missing = [];
  for (const name of names) {
    api[name] = pick(modules, name);
    if (api[name] === undefined) missing.push(name);
  }
  if (api.createRuntime === undefined) {
    throw new Error("relaytrace is not built: run `npm run build` at the repository root first");
  }
  const fromEntry = names.filter((n) => pick([entry, exporterEntry], n) !== undefined);
  api.source = fromEntry.length === names.length ? "package entry points" : `dist modules (entry points export ${fromEntry.length}/${names.length})`;
  api.missing = missing;
  return api;
}
