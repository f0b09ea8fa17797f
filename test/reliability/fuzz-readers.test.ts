import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { atofToAtif, validateAtif } from "../../exporters/atif/index.js";
import { AtofParseError } from "../../src/events/atof-errors.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);
const NAMES = ["exmp01", "exmp02", "exmp03"];

async function fixtureLines(): Promise<string[]> {
  const all: string[] = [];
  for (const name of NAMES) {
    const text = await readFile(new URL(`${name}_atof.jsonl`, fixtures), "utf8");
    all.push(...text.split("\n").filter((l) => l.trim() !== ""));
  }
  return all;
}

async function fixtureAtif(): Promise<unknown[]> {
  return Promise.all(NAMES.map(async (n) => JSON.parse(await readFile(new URL(`${n}_atif.json`, fixtures), "utf8")) as unknown));
}

/** The ATOF reader's contract: a parse result, or an AtofParseError naming the line — never anything else. */
function readOrParseError(text: string): AtofEvent[] | AtofParseError {
  try {
    return parseAtof(text).events;
  } catch (error) {
    if (error instanceof AtofParseError) {
      expect(error.lineNo).toBeGreaterThanOrEqual(1);
      expect(error.message).toMatch(/^ATOF line \d+: ./);
      return error;
    }
    throw error;
  }
}

const ENVELOPE_KEYS = [
  "kind",
  "scope_category",
  "atof_version",
  "uuid",
  "parent_uuid",
  "timestamp",
  "name",
  "attributes",
  "category",
  "category_profile",
  "data",
  "data_schema",
  "metadata",
];

/** Sets `path` (a list of keys/indices chosen by `picks`) inside a JSON copy of `doc` to `value`. */
function mutate(doc: unknown, picks: number[], value: unknown, remove: boolean): unknown {
  const root = structuredClone(doc);
  let node: unknown = root;
  for (let i = 0; i < picks.length; i++) {
    if (typeof node !== "object" || node === null) break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[picks[i]! % keys.length]!;
    const child = (node as Record<string, unknown>)[key];
    const last = i === picks.length - 1 || typeof child !== "object" || child === null;
    if (last) {
      if (remove) {
        if (Array.isArray(node)) node.splice(Number(key), 1);
        else delete (node as Record<string, unknown>)[key];
      } else (node as Record<string, unknown>)[key] = value;
      break;
    }
    node = child;
  }
  return root;
}

describe("fuzz: ATOF reader", () => {
  it("arbitrary text gives events or an AtofParseError", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (text) => {
        readOrParseError(text);
      }),
      { numRuns: 400 },
    );
  });

  it("arbitrary JSON lines, and envelopes with any value at any key, give events or an AtofParseError", () => {
    const envelope = fc.dictionary(fc.constantFrom(...ENVELOPE_KEYS, "extra"), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 14 });
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), envelope), { maxLength: 5 }), (values) => {
        readOrParseError(values.map((v) => JSON.stringify(v)).join("\n"));
      }),
      { numRuns: 400 },
    );
  });

  it("mutated and truncated lines of the real fixtures give events or an AtofParseError; what parses projects to ATIF or fails with an Error", async () => {
    const lines = await fixtureLines();
    fc.assert(
      fc.property(
        fc.nat(lines.length - 1),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.boolean(),
        fc.option(fc.nat(), { nil: undefined }),
        (lineIndex, picks, value, remove, cut) => {
          const line = lines[lineIndex]!;
          const mutated = JSON.stringify(mutate(JSON.parse(line), picks, value, remove));
          const text = [...lines.slice(0, lineIndex), cut === undefined ? mutated : mutated.slice(0, cut % mutated.length)].join("\n");
          const result = readOrParseError(text);
          if (Array.isArray(result)) {
            // Readers accepted it, so the projection must not blow up with a programming error.
            try {
              atofToAtif(result, { agent: { name: "fuzz", version: "0" } });
            } catch (error) {
              expect(error).toBeInstanceOf(Error);
              expect(error).not.toBeInstanceOf(TypeError);
              expect(error).not.toBeInstanceOf(RangeError);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("fuzz: ATIF validator", () => {
  it("never throws on arbitrary values and reports at least one violation for non-objects", () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 3 }), (value) => {
        const result = validateAtif(value);
        expect(typeof result.valid).toBe("boolean");
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          expect(result.valid).toBe(false);
          expect(result.errors.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on mutated real trajectories; a removal or replacement it rejects comes with a path and message", async () => {
    const docs = await fixtureAtif();
    for (const doc of docs) expect(validateAtif(doc).valid).toBe(true);
    fc.assert(
      fc.property(
        fc.nat(docs.length - 1),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(-1, 1e308, "", "x".repeat(10), null)),
        fc.boolean(),
        (i, picks, value, remove) => {
          const result = validateAtif(mutate(docs[i], picks, value, remove));
          for (const v of result.errors) {
            expect(typeof v.path).toBe("string");
            expect(v.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
