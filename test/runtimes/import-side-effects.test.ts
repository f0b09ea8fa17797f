// Runtimes such as Cloudflare Workers refuse random values, timers, AbortControllers and I/O in a
// module's top level, and have no undici (it needs node:sqlite) nor, often, a file system. The
// built entry points must import cleanly under those rules: each is imported in a child Node whose
// randomness, timers, AbortController and fs functions throw while it loads
// (test/runtimes/import-probe.mjs), and their static import graphs are walked with esbuild.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = fileURLToPath(new URL("./import-probe.mjs", import.meta.url));
const built = existsSync(`${ROOT}dist/src/index.js`);
const ENTRIES = ["dist/src/index.js", "dist/exporters/index.js", "dist/exporters/testing/index.js"];

interface ProbeReport {
  calls: string[];
  results: { entry: string; ok: boolean; error?: string }[];
}

function probe(entry: string): Promise<ProbeReport> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [PROBE, entry], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(line) as ProbeReport);
      } catch {
        reject(new Error(`probe of ${entry} printed no report: ${String(error)} ${stderr}`));
      }
    }),
  );
}

/** Every import in the static graph of `entry` (dynamic `import()` of a computed name is not followed): [importer, specifier]. */
async function staticImports(entry: string): Promise<[string, string][]> {
  const result = await build({
    entryPoints: [`${ROOT}${entry}`],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    external: ["node:*"],
    logLevel: "silent",
  });
  return Object.entries(result.metafile.inputs).flatMap(([file, info]) => info.imports.map((i): [string, string] => [file, i.path]));
}

describe.skipIf(!built)("the built entry points at import", () => {
  it.each(ENTRIES)("%s makes no random value, timer, AbortController or file access while it loads", async (entry) => {
    const report = await probe(entry);
    expect(report.results).toEqual([{ entry, ok: true }]);
    expect(report.calls).toEqual([]);
  });

  it.each(ENTRIES)("%s does not reach undici in its static import graph", async (entry) => {
    const imports = await staticImports(entry);
    expect(imports.filter(([file, specifier]) => /(^|\/)undici(\/|$)/.test(specifier) || file.includes("node_modules/undici/"))).toEqual(
      [],
    );
  });

  // The runtime (createRuntime and everything it builds on) and the OTLP exporter read and write
  // no files: where there is no file system they still load.
  it.each(["dist/src/runtime/runtime.js", "dist/exporters/otel/index.js"])("%s imports no node:fs from the package", async (entry) => {
    const imports = await staticImports(entry);
    expect(imports.filter(([file, specifier]) => file.startsWith("dist/") && /^(node:)?fs(\/promises)?$/.test(specifier))).toEqual([]);
  });
});
