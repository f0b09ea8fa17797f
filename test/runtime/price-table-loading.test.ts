import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { startNode } from "../support/child-process.js";

// The price table is 5 MB of heap and takes tens of milliseconds to load: importing relaytrace must
// not pay for it, nor a runtime that prices nothing. It loads at the first call there is a price
// to look up. Its version is what the docs and `relaytrace --version` name.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const built = existsSync(`${ROOT}dist/src/index.js`);

async function installedTableVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(`${ROOT}node_modules/@pydantic/genai-prices/package.json`, "utf8")) as { version: string };
  return pkg.version;
}

describe.skipIf(!built)("the bundled price table loads at the first priced call", () => {
  it("importing relaytrace, creating a runtime and unpriced work load nothing; the first call with a model and usage loads it", async () => {
    const child = startNode(fileURLToPath(new URL("./price-table-probe.mjs", import.meta.url)), []);
    const { code } = await child.exited;
    expect(child.stderr()).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(child.stdout().trim().split("\n").pop()!) as {
      steps: Record<string, boolean>;
      loads: number;
      cost: (number | undefined)[];
      diagnostics: unknown[];
    };
    expect(report.steps).toEqual({ import: false, createRuntime: false, "unpriced work": false, "priced call": true });
    // One module load: the table's ES module entry, once for the process.
    expect(report.loads).toBe(1);
    // gpt-4o-mini: 1,000 × $0.15 + 100 × $0.60 per million tokens.
    expect(report.cost).toEqual([null, 0.00021]); // (JSON: the first call has no cost)
    expect(report.diagnostics).toEqual([]);
  });

  it("a bundle of relaytrace for Node reaches the table only through import() from the pricing code", async () => {
    // A Worker bundle holds it only on request: test/runtimes/worker-bundle-opt-ins.test.ts.
    const result = await build({
      stdin: { contents: 'export { createRuntime } from "./dist/src/index.js";', resolveDir: ROOT, loader: "js" },
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "node",
      external: ["node:*"],
      logLevel: "silent",
    });
    const importers = Object.entries(result.metafile.inputs).flatMap(([file, info]) =>
      info.imports.filter((i) => i.path.includes("@pydantic/genai-prices")).map((i) => [file, i.kind]),
    );
    expect(importers).toEqual([["dist/src/wire/price-table-import.js", "dynamic-import"]]);
  });
});

describe("the price table's version is named where users look", () => {
  it("docs/production.md names the version installed", async () => {
    const guide = await readFile(`${ROOT}docs/production.md`, "utf8");
    expect(guide).toContain(`@pydantic/genai-prices\` ${await installedTableVersion()}`);
  });
});
