import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofParseError, UnsupportedAtofVersion } from "../../src/events/atof-errors.js";
import {
  MAX_KEPT_WARNINGS,
  parseAtof,
  readAtofFile,
  SKIPPED_LINE,
  streamAtofFile,
  WARNINGS_NOT_KEPT,
} from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);

function scope(category: "start" | "end", uuid: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    kind: "scope",
    scope_category: category,
    atof_version: "0.1",
    uuid,
    parent_uuid: "root",
    timestamp: category === "start" ? 1000 : 2000,
    name: "step",
    attributes: [],
    category: "function",
    category_profile: null,
    data: null,
    data_schema: null,
    metadata: null,
    ...extra,
  });
}

function failure(text: string): AtofParseError {
  try {
    parseAtof(text);
  } catch (err) {
    expect(err).toBeInstanceOf(AtofParseError);
    return err as AtofParseError;
  }
  throw new Error("stream was accepted");
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-reader-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parseAtof", () => {
  it("reads every NAT fixture with pairing checked and no warnings", async () => {
    const files = (await readdir(fileURLToPath(fixtures))).filter((f) => f.endsWith(".jsonl"));
    expect(files.length).toBe(3);
    for (const file of files) {
      const { events, warnings } = await readAtofFile(fileURLToPath(new URL(file, fixtures)));
      expect(events.length).toBeGreaterThan(0);
      expect(warnings).toEqual([]);
    }
  });

  it("skips blank lines but keeps counting them for line numbers", () => {
    const text = `${scope("start", "a")}\n\n   \r\n${scope("end", "a")}\n{oops\n`;
    const err = failure(text);
    expect(err.lineNo).toBe(5);
    const ok = parseAtof(`${scope("start", "a")}\n\n${scope("end", "a")}\r\n`);
    expect(ok.events.map((e) => e.kind)).toEqual(["scope", "scope"]);
  });

  it.each([
    ["name", { name: "other" }, /name "step" vs "other"/],
    ["category", { category: "tool" }, /category "function" vs "tool"/],
    ["attributes", { attributes: ["parallel"] }, /attributes \[\] vs \["parallel"\]/],
    ["parent_uuid", { parent_uuid: "elsewhere" }, /parent_uuid "root" vs "elsewhere"/],
  ])("rejects an end whose %s differs from its start, naming both lines", (_key, diff, reason) => {
    const err = failure([scope("start", "a"), scope("start", "b"), scope("end", "a", diff)].join("\n"));
    expect(err.lineNo).toBe(3);
    expect(err.reason).toMatch(/end on line 3 does not match start on line 1/);
    expect(err.reason).toMatch(reason);
  });

  it("rejects a second start and a second end for one uuid", () => {
    const twoStarts = failure([scope("start", "a"), scope("start", "a")].join("\n"));
    expect(twoStarts.lineNo).toBe(2);
    expect(twoStarts.reason).toMatch(/second start for uuid "a" \(first start on line 1\)/);
    const twoEnds = failure([scope("start", "a"), scope("end", "a"), scope("end", "a")].join("\n"));
    expect(twoEnds.lineNo).toBe(3);
    expect(twoEnds.reason).toMatch(/second end for uuid "a" \(first end on line 2\)/);
  });

  it("keeps an unclosed start and warns about an end without a start", () => {
    const { events, warnings } = parseAtof([scope("start", "open"), scope("end", "lonely")].join("\n"));
    expect(events).toHaveLength(2);
    expect(warnings).toEqual([expect.objectContaining({ lineNo: 2, code: "atof.end_without_start" })]);
  });

  it("can skip the pairing check", () => {
    expect(parseAtof([scope("start", "a"), scope("start", "a")].join("\n"), { checkPairing: false }).events).toHaveLength(2);
  });

  it("fails fast on a major version it does not know", () => {
    const err = failure([scope("start", "a"), scope("end", "a", { atof_version: "1.0" })].join("\n"));
    expect(err).toBeInstanceOf(UnsupportedAtofVersion);
    expect(err.lineNo).toBe(2);
  });

  it("accepts mixed minors and mixed timestamp forms in one stream", () => {
    const text = [scope("start", "a", { timestamp: "2026-01-01T00:00:00+00:00" }), scope("end", "a", { atof_version: "0.2" })].join("\n");
    expect(parseAtof(text).events.map((e) => e.timestamp)).toEqual(["2026-01-01T00:00:00+00:00", 2000]);
  });
});

describe("streamAtofFile", () => {
  it("streams a large file with progress reports and the same events as parseAtof", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++) lines.push(scope("start", `s${i}`), scope("end", `s${i}`));
    const path = join(dir, "big.jsonl");
    await writeFile(path, lines.join("\n") + "\n");
    const progress: number[] = [];
    const events: AtofEvent[] = [];
    for await (const event of streamAtofFile(path, { onProgress: (n) => progress.push(n), progressEvery: 1000 })) events.push(event);
    expect(events).toHaveLength(5000);
    expect(events).toEqual(parseAtof(lines.join("\n")).events);
    expect(progress).toEqual([1000, 2000, 3000, 4000, 5000]);
  });

  it("reports warnings and throws the first bad line with its number", async () => {
    const path = join(dir, "bad.jsonl");
    await writeFile(path, [scope("end", "x"), scope("start", "a"), "not json", ""].join("\n"));
    const warned: number[] = [];
    const seen: string[] = [];
    const run = async () => {
      for await (const event of streamAtofFile(path, { onWarning: (w) => warned.push(w.lineNo) })) seen.push(event.uuid);
    };
    await expect(run()).rejects.toMatchObject({ name: "AtofParseError", lineNo: 3 });
    expect(seen).toEqual(["x", "a"]);
    expect(warned).toEqual([1]);
  });

  it("returns at most MAX_KEPT_WARNINGS warnings and counts the rest, while onWarning sees every one", async () => {
    const path = join(dir, "many-bad.jsonl");
    const bad = MAX_KEPT_WARNINGS + 2500;
    const lines = [scope("start", "a")];
    for (let i = 0; i < bad; i++) lines.push(`not json ${i}`);
    lines.push(scope("end", "a"));
    await writeFile(path, lines.join("\n") + "\n");
    let seen = 0;
    const { events, warnings } = await readAtofFile(path, { skipBadLines: true, onWarning: () => void seen++ });
    expect(events.map((e) => e.uuid)).toEqual(["a", "a"]);
    expect(seen).toBe(bad);
    expect(warnings).toHaveLength(MAX_KEPT_WARNINGS + 1);
    expect(warnings.slice(0, MAX_KEPT_WARNINGS).every((w) => w.code === SKIPPED_LINE)).toBe(true);
    expect(warnings[0]!.lineNo).toBe(2);
    expect(warnings.at(-1)).toMatchObject({ code: WARNINGS_NOT_KEPT, lineNo: bad + 2 });
    expect(warnings.at(-1)!.message).toContain(`${bad - MAX_KEPT_WARNINGS} more warnings`);
  });

  it("returns every warning, with no count, when there are no more than MAX_KEPT_WARNINGS", async () => {
    const path = join(dir, "some-bad.jsonl");
    const lines = [scope("start", "a"), ...Array.from({ length: MAX_KEPT_WARNINGS }, (_, i) => `not json ${i}`), scope("end", "a")];
    await writeFile(path, lines.join("\n") + "\n");
    const { warnings } = await readAtofFile(path, { skipBadLines: true });
    expect(warnings).toHaveLength(MAX_KEPT_WARNINGS);
    expect(warnings.some((w) => w.code === WARNINGS_NOT_KEPT)).toBe(false);
  });
});
