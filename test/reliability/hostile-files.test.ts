import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofParseError } from "../../src/events/atof-errors.js";
import { DEFAULT_MAX_LINE_BYTES, readAtofFile, streamAtofFile } from "../../src/events/atof-reader.js";
import { redactPII } from "../../src/redact/index.js";
import type { JsonObject } from "../../src/events/json.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const BASE = 1_772_366_400_000_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-hostile-files-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A 600 MB line without a newline, written in 1 MiB pieces (never one string in this process). */
async function writeHugeLine(path: string): Promise<void> {
  const out = createWriteStream(path);
  const piece = Buffer.alloc(1024 * 1024, "a");
  out.write('{"kind":"scope","data":"');
  for (let i = 0; i < 600; i++) {
    if (!out.write(piece)) await new Promise((r) => out.once("drain", r));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

describe("a 600 MB ATOF line without a newline (a real file)", () => {
  let huge: string;
  beforeAll(async () => {
    huge = join(dir, "huge.jsonl");
    await writeHugeLine(huge);
  }, 120_000);

  it("streamAtofFile rejects with a catchable AtofParseError naming line 1 and the cap", async () => {
    let caught: unknown;
    try {
      for await (const event of streamAtofFile(huge)) void event;
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AtofParseError);
    expect((caught as AtofParseError).lineNo).toBe(1);
    expect((caught as AtofParseError).message).toContain(`line is longer than ${DEFAULT_MAX_LINE_BYTES} bytes`);
  });

  for (const command of [["validate"], ["tree"], ["convert", "--to", "otlp-json"]]) {
    it(`relaytrace ${command[0]} prints one line and exits 2`, { timeout: 60_000 }, async () => {
      const run = await cli([command[0]!, huge, ...command.slice(1)]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^relaytrace: .*huge\.jsonl:? ?(?:1|ATOF line 1).*longer than \d+ bytes/);
    });
  }

  it("the cap is configurable: maxLineBytes", async () => {
    const path = join(dir, "small-cap.jsonl");
    await writeLines(path, [
      scopeLine("start", "a", null, BASE),
      scopeLine("end", "a", null, BASE + 1, { data: { text: "x".repeat(5000) } }),
    ]);
    await expect(readAtofFile(path, { maxLineBytes: 1024 })).rejects.toMatchObject({ name: "AtofParseError", lineNo: 2 });
    expect((await readAtofFile(path)).events).toHaveLength(2);
  });
});

describe("terminal output escapes control characters from foreign files", () => {
  it("relaytrace tree prints ESC, BEL, CR, LF and bidi overrides in names as visible escapes", async () => {
    const evil = "title\u001b]0;pwned\u0007\r\nfake: all good\u202e";
    const path = join(dir, "evil.jsonl");
    await writeLines(path, [scopeLine("start", "a", null, BASE, { name: evil }), scopeLine("end", "a", null, BASE + 1, { name: evil })]);
    const run = await cli(["tree", path]);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the control characters are what must not get through
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stdout).toContain("title\\x1b]0;pwned\\x07\\r\\nfake: all good\\u202e (INTERNAL, UNSET)");
  });

  it("the ATIF tree does the same for step text and agent names", async () => {
    const path = join(dir, "evil.json");
    const doc = {
      schema_version: "ATIF-v1.7",
      session_id: "s",
      agent: { name: "bad\u001b[2Jagent", version: "1" },
      steps: [{ step_id: 1, source: "user", message: "hi\rthere\u0007" }],
    };
    await writeFile(path, JSON.stringify(doc));
    const run = await cli(["tree", path]);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the control characters are what must not get through
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(run.stdout).toContain("bad\\x1b[2Jagent");
    expect(run.stdout).toContain("hi there\\x07"); // whitespace runs are one space in the tree; other controls are escaped
  });
});

describe("redactPII on an object keyed by e-mail addresses", () => {
  it("keeps all 4,000 entries, each under its own collision suffix, and leaks none of the addresses", () => {
    const byAddress: JsonObject = {};
    for (let i = 0; i < 4_000; i++) byAddress[`user${i}@example.com`] = i;
    const out = redactPII().redactValue(byAddress) as JsonObject;
    const keys = Object.keys(out);
    expect(keys).toHaveLength(4_000);
    expect(keys[0]).toBe("[REDACTED:email]");
    expect(keys[1]).toBe("[REDACTED:email]#2");
    expect(keys.at(-1)).toBe("[REDACTED:email]#4000");
    expect(Object.values(out)).toEqual(Array.from({ length: 4_000 }, (_, i) => i));
    expect(JSON.stringify(out)).not.toContain("@example.com");
  });
});
