// `relaytrace convert` and `tree` write to stdout as they read, and wait for what they wrote to be
// taken before reading on: a reader that stops reading holds the command back, never fills its
// memory (the same rule `diff --json` follows). The Io's `drained()` is the stdout pipe's drain.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

const BASE = 1_772_366_400_000_000;
const RUNS = 2_000;
let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-backpressure-"));
  file = join(dir, "runs.jsonl");
  await writeLines(
    file,
    (function* () {
      let us = BASE;
      for (let r = 0; r < RUNS; r++) {
        yield scopeLine("start", `r${r}`, null, us++, { name: `run-${r}`, category: "agent" });
        yield scopeLine("end", `r${r}`, null, us++, { name: `run-${r}`, category: "agent" });
      }
    })(),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An Io whose reader has stopped: `drained()` settles only when `resume()` is called. */
function stoppedReader() {
  const io = capturedIo();
  let resume!: () => void;
  const taken = new Promise<void>((resolve) => (resume = resolve));
  let asked = 0;
  let announce: () => void = () => {};
  const firstAsk = new Promise<void>((resolve) => (announce = resolve));
  io.drained = () => {
    asked++;
    announce();
    return taken;
  };
  return { io, resume, firstAsk, asked: () => asked };
}

describe("stdout backpressure", () => {
  for (const args of [["convert", "--to", "otlp-json"], ["convert", "--to", "tree"], ["tree"]]) {
    it(`${args.join(" ")} waits for a stopped reader, then finishes with everything`, async () => {
      const reader = stoppedReader();
      let finished = false;
      const run = main([...args.slice(0, 1), file, ...args.slice(1)], reader.io).then((code) => ((finished = true), code));
      await reader.firstAsk; // the command wrote its first batch and asked whether it was taken
      // Let it run as far as it can on its own: it must stay where it asked.
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(finished).toBe(false);
      expect(reader.asked()).toBe(1);
      const heldLines = reader.io.stdout.length;
      reader.resume();
      expect(await run).toBe(0);
      expect(reader.io.stdout.length).toBeGreaterThan(heldLines);
      const text = reader.io.stdout.join("\n");
      for (const r of [0, RUNS - 1]) expect(text).toContain(`run-${r}`);
    });
  }
});
