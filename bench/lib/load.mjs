// Loads a BUILT relaytrace package (run `npm run build` at its root first): by default this
// repository's `dist/`, or the tree at `root` (a directory holding `dist/`, or a `dist/` itself),
// so that two builds can be measured side by side in one process (bench/ab.mjs).
// Prefers the public entry points; while they are still being assembled, falls back to the
// modules under dist/ so the harness keeps working. `source` says which was used.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ownDist = new URL("../../dist/", import.meta.url);

/** The `dist/` URL of the tree at `root` (undefined: this repository). */
export function distUrl(root) {
  if (root === undefined) return ownDist;
  const abs = path.resolve(root);
  const dist = existsSync(path.join(abs, "dist", "src")) ? path.join(abs, "dist") : abs;
  if (!existsSync(path.join(dist, "src", "index.js"))) {
    throw new Error(`${root}: no built relaytrace here (expected dist/src/index.js; run \`npm run build\` there)`);
  }
  return pathToFileURL(dist + path.sep);
}

async function tryImport(dist, relative) {
  const url = new URL(relative, dist);
  if (!existsSync(fileURLToPath(url))) return undefined;
  return import(url.href);
}

function pick(modules, name) {
  for (const m of modules) if (m && m[name] !== undefined) return m[name];
  return undefined;
}

export async function loadRelaytrace(root) {
  const dist = distUrl(root);
  const entry = await tryImport(dist, "src/index.js");
  const exporterEntry = await tryImport(dist, "exporters/index.js");
  const fallbacks = await Promise.all([
    tryImport(dist, "src/runtime/runtime.js"),
    tryImport(dist, "src/agent/index.js"),
    tryImport(dist, "exporters/atof/index.js"),
    tryImport(dist, "exporters/otel/index.js"),
    tryImport(dist, "exporters/atif/index.js"),
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
    throw new Error(`relaytrace is not built at ${fileURLToPath(dist)}: run \`npm run build\` at the repository root first`);
  }
  const fromEntry = names.filter((n) => pick([entry, exporterEntry], n) !== undefined);
  api.source =
    fromEntry.length === names.length ? "package entry points" : `dist modules (entry points export ${fromEntry.length}/${names.length})`;
  api.dist = fileURLToPath(dist);
  api.missing = missing;
  return api;
}
