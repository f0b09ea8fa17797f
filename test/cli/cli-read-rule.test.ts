import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

const BASE = 1_772_366_400_000_000;
let dir: string;
let torn: string;
let badMiddle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-read-rule-"));
  const lines = [
    scopeLine("start", "r", null, BASE, { name: "run", category: "agent", data: { input: "question" } }),
    scopeLine("start", "c", "r", BASE + 1, { name: "step" }),
    scopeLine("end", "c", "r", BASE + 2, { name: "step" }),
    scopeLine("end", "r", null, BASE + 3, { name: "run", category: "agent", data: { output: "answer" } }),
  ];
  torn = join(dir, "torn.jsonl");
  await writeLines(torn, lines);
  await appendFile(torn, '{"kind":"scope","scope_cat');
  badMiddle = join(dir, "bad-middle.jsonl");
  await writeLines(badMiddle, [lines[0]!, lines[1]!, "{not json", lines[2]!, lines[3]!]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TORN_WARNING =
  /^relaytrace: warning: .*torn\.jsonl:5: the last line \(26 bytes\) ends without a line end and is not complete JSON: skipped$/;
const SKIPPED_WARNING = /^relaytrace: warning: .*bad-middle\.jsonl:3: skipped: not valid JSON/;

const COMMANDS: { name: string; args: (file: string) => string[]; invalid: number }[] = [
  { name: "tree", args: (f) => ["tree", f], invalid: 2 },
  { name: "convert --to otlp-json", args: (f) => ["convert", f, "--to", "otlp-json", "-o", join(dir, "out.json")], invalid: 2 },
  { name: "convert --to tree", args: (f) => ["convert", f, "--to", "tree"], invalid: 2 },
  { name: "convert --to atif", args: (f) => ["convert", f, "--to", "atif", "-o", join(dir, "atif/")], invalid: 2 },
  { name: "validate", args: (f) => ["validate", f], invalid: 1 },
];

describe("one rule for lines that cannot be read, in every command", () => {
  for (const command of COMMANDS) {
    it(`${command.name}: a torn last line is skipped with a one-line warning; a bad line in the middle fails unless --lenient`, async () => {
      const tornIo = capturedIo();
      expect(await main(command.args(torn), tornIo)).toBe(0);
      expect(tornIo.stderr.filter((l) => l.includes("warning"))).toEqual([expect.stringMatching(TORN_WARNING)]);

      const strict = capturedIo();
      expect(await main(command.args(badMiddle), strict)).toBe(command.invalid);
      expect([...strict.stderr, ...strict.stdout].join("\n")).toMatch(/bad-middle\.jsonl:? ?(?::3|ATOF line 3): .*not valid JSON/);

      const lenient = capturedIo();
      expect(await main([...command.args(badMiddle), "--lenient"], lenient)).toBe(0);
      expect(lenient.stderr.filter((l) => l.includes("warning"))).toEqual([expect.stringMatching(SKIPPED_WARNING)]);
    });
  }
});
