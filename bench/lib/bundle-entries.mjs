// Bundles a built relaytrace package (a directory with package.json and dist/) in place: every
// entry point of package.json `exports` and the `bin` becomes one ES module, the modules they share
// go to chunks under dist/chunks/ (one copy each, so `relaytrace` and `relaytrace/exporters` still
// share one runtime registry and one default runtime), and packages and `#imports` stay imports.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";

/** The files package.json names as entry points: each `exports` target (its `default`) and each `bin`. */
export function entryFiles(manifest) {
  const target = (value) => (typeof value === "string" ? value : value.default);
  const exportsField = typeof manifest.exports === "string" ? { ".": manifest.exports } : manifest.exports;
  const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return [...new Set([...Object.values(exportsField).map(target), ...bins])];
}

/** Bundles `dir`'s entry points over their tsc output; resolves with the entries and chunks written. */
export async function bundleEntries(dir) {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  const entries = entryFiles(manifest);
  const result = await build({
    absWorkingDir: dir,
    entryPoints: entries.map((file) => join(dir, file)),
    outbase: dir,
    outdir: dir,
    allowOverwrite: true,
    entryNames: "[dir]/[name]",
    chunkNames: "dist/chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    external: ["#*"],
    metafile: true,
    logLevel: "warning",
  });
  const outputs = Object.keys(result.metafile.outputs);
  // The chunks ship with the package.
  if (Array.isArray(manifest.files) && !manifest.files.includes("dist/chunks")) {
    manifest.files.push("dist/chunks");
    await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { entries, chunks: outputs.filter((f) => f.includes("dist/chunks/")).length };
}
