// A command whose reader goes away (`relaytrace diff A B | head`) stops quietly, as Unix tools
// do: no message, exit status 0. Every command that writes to stdout is run as a child with
// its stdout a real pipe whose reader is forced away: either it reads the first line and
// closes (for output much larger than a pipe holds), or it is gone before the child starts.
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { scopeLine, writeLines } from "../support/atof-files.js";
import { runWithClosingReader, type PipedRun } from "../support/closed-reader.js";
import { writeLargeAtof } from "../support/large-atof.js";
import { writeModelCallRecording } from "../support/model-call-recording.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-closed-output-");
const path = (name: string) => join(scratch.dir, name);
const RUN_START_US = Date.UTC(2026, 0, 1) * 1000 - 1;

beforeAll(async () => {
  // 20,000 small traces: a span tree and an OTLP/JSON request of several MB.
  await writeLargeAtof(path("spans.jsonl"), { runs: 20_000, children: 1, payloadBytes: 16 });
  // Two runs of 3,000 model calls whose every reply differs: 2,000 change lines of ~800 characters.
  await writeModelCallRecording(path("a.jsonl"), { calls: 3000, answer: (i) => `${i}:` + "a".repeat(500) });
  await writeModelCallRecording(path("b.jsonl"), { calls: 3000, answer: (i) => `${i}:` + "b".repeat(500) });
  // One agent run of 2,000 model calls: one ATIF trajectory of several MB.
  const agent = { name: "agent", category: "agent" } as const;
  await writeModelCallRecording(path("run.jsonl"), {
    calls: 2000,
    parent: "run",
    answer: (i) => `${i}:` + "r".repeat(1000),
    head: [scopeLine("start", "run", null, RUN_START_US, agent)],
    tail: [scopeLine("end", "run", null, Date.UTC(2026, 0, 2) * 1000, agent)],
  });
  // 30,000 lines that are not ATOF: validate lists each problem on stdout.
  await writeLines(
    path("bad.jsonl"),
    Array.from({ length: 30_000 }, (_, i) => `{"line": ${i}}`),
  );
  await writeFile(
    path("small.jsonl"),
    scopeLine("start", "s", null, RUN_START_US) + "\n" + scopeLine("end", "s", null, RUN_START_US + 1) + "\n",
  );
});

/** What a command wrote on stderr besides its progress lines (which come every 2 s of a long read). */
function messages(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line !== "" && !/^(reading|validating) .*: [\d,]+ lines$/.test(line));
}

function expectQuietStop(run: PipedRun): void {
  expect(messages(run.stderr)).toEqual([]);
  expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
}

describe("a command whose reader goes away after the first line", () => {
  const cases: [string, () => string[], RegExp][] = [
    ["tree", () => ["tree", path("spans.jsonl")], /run-0/],
    ["convert --to tree", () => ["convert", path("spans.jsonl"), "--to", "tree"], /run-0/],
    ["convert --to otlp-json", () => ["convert", path("spans.jsonl"), "--to", "otlp-json"], /^\{/],
    ["convert --to atif", () => ["convert", path("run.jsonl"), "--to", "atif"], /^\{/],
    ["diff", () => ["diff", path("a.jsonl"), path("b.jsonl")], /^step 1: model output/],
    ["diff --json", () => ["diff", path("a.jsonl"), path("b.jsonl"), "--json"], /^\{"equal":false,"changes":\[/],
    ["validate", () => ["validate", path("bad.jsonl")], /bad\.jsonl:1: /],
  ];
  for (const [name, args, first] of cases) {
    it(`${name} stops quietly with status 0`, { timeout: 60_000 }, async () => {
      const run = await runWithClosingReader([CLI, ...args()], { dir: scratch.dir, reader: "first-line" });
      expect(run.read).toMatch(first);
      expectQuietStop(run);
    });
  }

  it("replay, whose reader left after its first line, stops quietly when a signal makes it print its summary", async () => {
    const run = await runWithClosingReader([CLI, "replay", path("a.jsonl")], {
      dir: scratch.dir,
      reader: "first-line",
      afterClose: (child) => child.kill("SIGINT"),
    });
    expect(run.read).toMatch(/^replaying 3000 calls on http:\/\/127\.0\.0\.1:\d+\n$/);
    expectQuietStop(run);
  });
});

describe("a command whose stdout has no reader at all", () => {
  const helps = ["demo", "convert", "validate", "tree", "view", "send", "replay", "diff"].map((c) => [c, "--help"]);
  for (const args of [["--help"], ["--version"], ...helps]) {
    it(`${args.join(" ")} stops quietly with status 0`, async () => {
      expectQuietStop(await runWithClosingReader([CLI, ...args], { dir: scratch.dir, reader: "none" }));
    });
  }

  for (const [name, args] of [
    ["demo", () => ["demo", "--out", path("demo-out")]],
    ["replay", () => ["replay", path("a.jsonl")]],
    ["validate", () => ["validate", path("small.jsonl")]],
    ["tree", () => ["tree", path("small.jsonl")]],
  ] as [string, () => string[]][]) {
    it(`${name} stops quietly with status 0 at its first line`, { timeout: 60_000 }, async () => {
      expectQuietStop(await runWithClosingReader([CLI, ...args()], { dir: scratch.dir, reader: "none" }));
    });
  }
});

describe("stdout that fails for another reason", () => {
  it("is one line on stderr and exit status 2 (a full disk: /dev/full)", () => {
    const full = openSync("/dev/full", "w");
    try {
      const result = spawnSync(process.execPath, [CLI, "tree", path("spans.jsonl")], { stdio: ["ignore", full, "pipe"] });
      expect(messages(result.stderr.toString())).toEqual(["relaytrace: cannot write to standard output: no space left on the device"]);
      expect(result.status).toBe(2);
    } finally {
      closeSync(full);
    }
  });
});
