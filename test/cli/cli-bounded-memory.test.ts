import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLargeAtof, type LargeAtofShape } from "../support/large-atof.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
/** The child's heap: each input below is more than three times this. */
const HEAP_MB = 64;
/** 100 runs × 64 children × 2 × 16 KiB ≈ 210 MB. */
const SHAPE: LargeAtofShape = { runs: 100, children: 64, payloadBytes: 16 * 1024 };
const SPANS = SHAPE.runs * (1 + SHAPE.children);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-bounded-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI in a child with a small heap, its scratch space (TMPDIR) in `scratch`; stdout to a file when asked. */
async function cliWithSmallHeap(args: string[], scratch: string): Promise<Run> {
  await mkdir(scratch, { recursive: true });
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: scratch },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  return { code, stdout, stderr };
}

async function bigger(path: string): Promise<number> {
  const { size } = await stat(path);
  expect(size).toBeGreaterThan(3 * HEAP_MB * 1024 * 1024);
  return size;
}

/** Counts the spans of a pretty-printed OTLP/JSON file line by line, never holding it whole. */
async function countSpans(path: string): Promise<{ spans: number; names: Set<string> }> {
  let spans = 0;
  const names = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (/^\s*"spanId": "/.test(line)) spans++;
    const name = /^\s*"name": "([a-z]-run-\d+|run-\d+)"/.exec(line);
    if (name) names.add(name[1]!);
  }
  return { spans, names };
}

describe("every CLI command runs in bounded memory on a file several times its heap", { timeout: 240_000 }, () => {
  it(`tree of a ~210 MB file in a ${HEAP_MB} MB heap prints every run and step`, async () => {
    const path = join(dir, "tree.jsonl");
    await writeLargeAtof(path, SHAPE);
    await bigger(path);
    const run = await cliWithSmallHeap(["tree", path], join(dir, "tmp-tree"));
    expect(run.stderr).not.toMatch(/heap|allocation failed/i);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(SPANS);
    const roots = lines.filter((l) => l.startsWith("run-")).map((l) => l.split(" ")[0]);
    expect(roots).toEqual(Array.from({ length: SHAPE.runs }, (_, r) => `run-${r}`));
    expect(lines.filter((l) => /^(├─|└─) step \(INTERNAL, UNSET\)/.test(l))).toHaveLength(SHAPE.runs * SHAPE.children);
  });

  it(`convert --to atif of a ~210 MB file in a ${HEAP_MB} MB heap writes every trajectory`, async () => {
    const path = join(dir, "atif.jsonl");
    await writeLargeAtof(path, SHAPE);
    await bigger(path);
    const out = join(dir, "trajectories");
    const run = await cliWithSmallHeap(["convert", path, "--to", "atif", "-o", `${out}/`], join(dir, "tmp-atif"));
    expect(run.code).toBe(0);
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(`${SHAPE.runs} trajectories from ${SHAPE.runs * (2 + 2 * SHAPE.children)} events`);
    const files = await readdir(out);
    expect(files).toHaveLength(SHAPE.runs);
    const doc = JSON.parse(await readFile(join(out, "relaytrace-atif-r42.json"), "utf8")) as {
      agent: { name: string };
      steps: { message: string }[];
    };
    expect(doc.agent.name).toBe("run-42");
    expect(doc.steps.map((s) => s.message)).toEqual(["question 42", "answer 42"]);
  });

  it(`convert --to otlp-json of three ~70 MB files whose runs interleave in time, in a ${HEAP_MB} MB heap, writes every span`, async () => {
    const third = { ...SHAPE, runs: Math.ceil(SHAPE.runs / 3), runSpacingUs: 3 * (2 + 2 * SHAPE.children) };
    const paths = ["a", "b", "c"].map((p) => join(dir, `${p}.jsonl`));
    let total = 0;
    for (const [i, path] of paths.entries()) {
      await writeLargeAtof(path, { ...third, prefix: `${"abc"[i]}-`, startUs: 1_772_366_400_000_000 + i * 7 });
      total += (await stat(path)).size;
    }
    expect(total).toBeGreaterThan(3 * HEAP_MB * 1024 * 1024);
    const out = join(dir, "merged.otlp.json");
    const run = await cliWithSmallHeap(["convert", ...paths, "--to", "otlp-json", "-o", out], join(dir, "tmp-otlp"));
    expect(run.code).toBe(0);
    const spans = 3 * third.runs * (1 + SHAPE.children);
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
      `wrote ${out} (${3 * third.runs * (2 + 2 * SHAPE.children)} events in, ${spans} spans out)`,
    );
    const counted = await countSpans(out);
    expect(counted.spans).toBe(spans);
    expect(counted.names.size).toBe(3 * third.runs);
  });

  it(`an unsorted ~210 MB file (runs written last first) is sorted through a private temp directory, removed afterwards, in a ${HEAP_MB} MB heap`, async () => {
    const path = join(dir, "unsorted.jsonl");
    await writeLargeAtof(path, { ...SHAPE, runsReversed: true });
    await bigger(path);
    const scratch = join(dir, "tmp-unsorted");
    const run = await cliWithSmallHeap(["tree", path], scratch);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(SPANS);
    // In time order, as a sort of the whole file would give: run-0 first although it is written last.
    const roots = lines.filter((l) => l.startsWith("run-")).map((l) => l.split(" ")[0]);
    expect(roots).toEqual(Array.from({ length: SHAPE.runs }, (_, r) => `run-${r}`));
    expect(await readdir(scratch)).toEqual([]);
  });
});
