// A call that never ends (a crashed run at the head of an append-mode file) does not hold the
// rest of the recording in memory: after 64 later steps (or ~4M characters of them) its step is
// handed out unfinished, so `relaytrace diff` needs the same memory wherever the unended call sits.
import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diffRuns } from "../../src/diff/index.js";
import { STEP_WAIT_STEPS, streamRunSteps, type RunStep } from "../../src/diff/steps.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";
import { scopeLine } from "../support/atof-files.js";
import { writeModelCallRecording } from "../support/model-call-recording.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-diff-unended-");
// As in diff-bounded-memory.test.ts: the recordings are several times this heap.
const HEAP_MB = 64;

/** A tool call's start whose end was never written, before the first model call. */
const UNENDED = scopeLine("start", "crashed-tool", null, Date.UTC(2025, 11, 31) * 1000, {
  name: "lookup",
  category: "tool",
  data: { q: "x" },
});

async function recording(name: string, calls: number, answer: (i: number) => string, head: string[] = []): Promise<string> {
  const path = join(scratch.dir, name);
  await writeModelCallRecording(path, { calls, answer, head });
  return path;
}

describe("a call that never ends", () => {
  it("holds back the steps after it only so far: they come out while the input is still being read", async () => {
    const file = await recording("small.jsonl", 200, (i) => `answer ${i}`, [UNENDED]);
    const { events } = parseAtof(await readFile(file, "utf8"));
    let reachedEnd!: () => void;
    const inputEnded = new Promise<void>((resolve) => (reachedEnd = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Every event, then the input stalls (a writer that is still running) until released.
    async function* stalling(): AsyncGenerator<AtofEvent> {
      yield* events;
      reachedEnd();
      await held;
    }
    const steps: RunStep[] = [];
    const reading = (async () => {
      for await (const step of streamRunSteps(stalling())) steps.push(step);
    })();
    await inputEnded; // every step the builder could hand out was taken before it asked for more input
    const before = steps.length;
    release();
    await reading;
    // Step 0 (the unended tool) went out once 64 steps waited behind it, and they followed: every
    // step but the last, which the next model call could still add to.
    expect(before).toBe(200);
    expect(before).toBeGreaterThan(STEP_WAIT_STEPS);
    expect(steps[0]).toEqual({ step: 0, model: null, tools: [{ name: "lookup", args: { q: "x" }, result: undefined, status: "UNSET" }] });
    expect(steps.map((s) => s.step)).toEqual(Array.from({ length: 201 }, (_, i) => i));
  });

  it("is compared as unfinished, as at the end of the input; an end that comes after the wait is ignored", async () => {
    const file = await recording("late-end.jsonl", 100, (i) => `answer ${i}`);
    const run = parseAtof(await readFile(file, "utf8")).events;
    const crashed = parseAtof(UNENDED + "\n").events;
    const lateEnd = parseAtof(
      scopeLine("end", "crashed-tool", null, Date.UTC(2026, 1, 1) * 1000, { name: "lookup", category: "tool", data: { r: 1 } }) + "\n",
    ).events;
    const unfinished = diffRuns(run, [...crashed, ...run]);
    expect(unfinished.changes).toEqual([
      { kind: "tool_call_added", step: 0, tool: "lookup", a: null, b: { args: { q: "x" }, result: null } },
    ]);
    expect(diffRuns(run, [...crashed, ...run, ...lateEnd])).toEqual(unfinished);
  });

  it(
    "at the head of a recording several times the heap: relaytrace diff needs the memory it needs without it",
    { timeout: 120_000 },
    async () => {
      const answer = (i: number) => `${i}:` + "a".repeat(128 * 1024);
      const plain = await recording("plain.jsonl", 1600, answer);
      const crashed = await recording("crashed.jsonl", 1600, answer, [UNENDED]);
      expect((await stat(crashed)).size).toBeGreaterThan(3 * HEAP_MB * 1024 * 1024);
      const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, "diff", plain, crashed], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(stderr).toBe("");
      const lines = stdout.trim().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('step 0: + tool call lookup {"q":"x"}');
      expect(lines[1]).toMatch(/^1 changes: model calls 1600 → 1600, tokens 16000 → 16000 \(\+0\)/);
      expect(code).toBe(1);
    },
  );
});
