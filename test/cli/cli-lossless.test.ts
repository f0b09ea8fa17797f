import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIo } from "../support/cli-io.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const BASE = 1_772_366_400_000_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-cli-lossless-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `runs` root scopes, each with `children` child scopes, in time order. */
function* runs(count: number, children: number): Generator<string> {
  let us = BASE;
  for (let r = 0; r < count; r++) {
    yield scopeLine("start", `r${r}`, null, us++, { name: `run-${r}`, category: "agent" });
    for (let c = 0; c < children; c++) {
      yield scopeLine("start", `r${r}c${c}`, `r${r}`, us++, { name: "step" });
      yield scopeLine("end", `r${r}c${c}`, `r${r}`, us++, { name: "step" });
    }
    yield scopeLine("end", `r${r}`, null, us++, { name: `run-${r}`, category: "agent" });
  }
}

interface OtlpJson {
  resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
}

function spanNames(doc: OtlpJson): string[] {
  return doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)));
}

describe("the CLI loses nothing at any file size", () => {
  it("convert --to otlp-json on 5,000 scopes writes all 5,000 spans", async () => {
    const path = join(dir, "5000.jsonl");
    await writeLines(path, runs(1_000, 4));
    const out = join(dir, "5000.otlp.json");
    const io = captureIo();
    expect(await main(["convert", path, "--to", "otlp-json", "-o", out], io)).toBe(0);
    const names = spanNames(JSON.parse(await readFile(out, "utf8")) as OtlpJson);
    expect(names).toHaveLength(5_000);
    expect(new Set(names.filter((n) => n.startsWith("run-"))).size).toBe(1_000);
    expect(io.stderr).toEqual([`wrote ${out} (10000 events in, 5000 spans out)`]);
  });

  it("tree shows all 1,000 runs", async () => {
    const path = join(dir, "1000.jsonl");
    await writeLines(path, runs(1_000, 1));
    const io = captureIo();
    expect(await main(["tree", path], io)).toBe(0);
    const roots = io.stdout
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("run-"));
    expect(roots).toHaveLength(1_000);
    expect(roots.at(-1)).toMatch(/^run-999 /);
  });

  it("convert above 128k lines (130,200) finishes with every span and no stack overflow", { timeout: 180_000 }, async () => {
    const path = join(dir, "140k.jsonl");
    await writeLines(path, runs(9_300, 6)); // 9,300 × (2 + 12) = 130,200 lines
    const out = join(dir, "140k.otlp.json");
    const io = captureIo();
    expect(await main(["convert", path, "--to", "otlp-json", "-o", out], io)).toBe(0);
    expect(spanNames(JSON.parse(await readFile(out, "utf8")) as OtlpJson)).toHaveLength(65_100);
  });

  it.skipIf(!existsSync("/dev/full"))("an output that fills up (/dev/full) is one line and exit 2, not a partial success", async () => {
    const path = join(dir, "5000.jsonl");
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI, "convert", path, "--to", "otlp-json", "-o", "/dev/full"], (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("relaytrace: cannot write /dev/full: no space left on the device\n");
  });
});
