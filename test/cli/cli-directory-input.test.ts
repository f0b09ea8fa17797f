import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { main } from "../../src/cli/main.js";
import type { AtofEvent } from "../../src/events/types.js";
import { scopeLine } from "../support/atof-files.js";
import { capturedIo } from "../support/cli-io.js";
import { spansOf, startOtlpReceiver } from "../support/otlp.js";

const T0 = 1_772_366_400_000_000;
let root: string;
let rotated: string;
let files: string[];

/** A run written by the file exporter with rotation: every event lands in a file of its own. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "relaytrace-dir-input-"));
  rotated = join(root, "rotated");
  const exporter = new AtofExporter({ type: "file", outputDirectory: rotated, rotate: { maxBytes: 1 } });
  const lines = [
    scopeLine("start", "run", null, T0, { category: "agent" }),
    scopeLine("start", "step", "run", T0 + 1),
    scopeLine("end", "step", "run", T0 + 2),
    scopeLine("end", "run", null, T0 + 3, { category: "agent" }),
  ];
  for (const line of lines) exporter.onEvent(JSON.parse(line) as AtofEvent);
  await exporter.shutdown();
  // Beside the set: things a directory read passes over.
  await writeFile(join(rotated, "README.txt"), "not ATOF\n");
  await mkdir(join(rotated, "sub.jsonl"));
  files = (await readdir(rotated)).filter((f) => f.endsWith(".jsonl") && f !== "sub.jsonl").sort();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const io = capturedIo();
  const code = await main(args, io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("every CLI command that reads ATOF takes a directory: its *.jsonl in name order, one input", () => {
  it("the set really is split: the run's scope starts in the first file and ends in the last", () => {
    expect(files).toHaveLength(4);
  });

  it("validate: the scopes pair up across files", async () => {
    const run = await cli(["validate", rotated]);
    expect(run).toMatchObject({ code: 0, out: `${rotated}: valid ATOF (4 events)` });
  });

  it("tree: one span per scope, the step inside the run", async () => {
    const run = await cli(["tree", rotated]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^run \(INTERNAL, UNSET\)[^\n]*\n└─ step \(INTERNAL, UNSET\)/);
    expect(run.out).not.toContain("no spans");
  });

  it("convert --to otlp-json: two spans, the step's parent is the run", async () => {
    const out = join(root, "spans.json");
    expect((await cli(["convert", rotated, "--to", "otlp-json", "-o", out])).code).toBe(0);
    const request = JSON.parse(await readFile(out, "utf8")) as Record<string, unknown>;
    const spans = spansOf(request) as { name: string; spanId: string; parentSpanId?: string }[];
    expect(spans.map((s) => s.name).sort()).toEqual(["run", "step"]);
    const runSpan = spans.find((s) => s.name === "run")!;
    expect(spans.find((s) => s.name === "step")!.parentSpanId).toBe(runSpan.spanId);
  });

  it("view: writes the page", async () => {
    const out = join(root, "page.html");
    expect((await cli(["view", rotated, "-o", out])).code).toBe(0);
    expect(await readFile(out, "utf8")).toContain("step");
  });

  it("diff: a directory against the same run in one file shows no difference", async () => {
    const single = join(root, "single.jsonl");
    const text = (await Promise.all(files.map((f) => readFile(join(rotated, f), "utf8")))).join("");
    await writeFile(single, text);
    const run = await cli(["diff", rotated, single]);
    expect(run.code).toBe(0);
  });

  it("replay: reads the directory as one recording (this run has no model call to replay, as it says)", async () => {
    const run = await cli(["replay", rotated]);
    expect(run.err).toBe(`relaytrace: cannot replay ${rotated}: the recording has no model (llm) calls to replay`);
  });

  it("send: the receiver gets both spans", async () => {
    const receiver = await startOtlpReceiver();
    try {
      expect((await cli(["send", rotated, "--otlp", `${receiver.url}/v1/traces`])).code).toBe(0);
      const names = receiver.received.flatMap((r) => spansOf(r.body)).map((s) => s.name);
      expect(names.sort()).toEqual(["run", "step"]);
    } finally {
      await receiver.close();
    }
  });

  it("a directory with nothing to read is a clear error, exit status 2", async () => {
    const empty = join(root, "empty");
    await mkdir(join(empty, "nested.jsonl"), { recursive: true });
    await writeFile(join(empty, "notes.txt"), "x\n");
    for (const args of [
      ["validate", empty],
      ["tree", empty],
      ["convert", empty, "--to", "tree"],
      ["send", empty, "--otlp", "http://127.0.0.1:9/v1/traces"],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(2);
      expect(run.err).toBe(`relaytrace: ${empty}: a directory with no *.jsonl files to read`);
    }
  });
});
