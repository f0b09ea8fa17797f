import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import { markEvent } from "../support/atof-files.js";

let root: string;
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "relaytrace-rotation-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = join(root, `d${n++}`);
  return dir;
}

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 2, 1, 12, 0, 0)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** The set's files in name order, each checked: ends with a line end, every line a whole ATOF event. */
async function filesOf(dir: string): Promise<{ name: string; uuids: string[]; bytes: number }[]> {
  const names = (await readdir(dir)).filter((f) => f.endsWith(".jsonl")).sort();
  const out = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), "utf8");
    expect(text.endsWith("\n"), `${name} ends with a line end`).toBe(true);
    const uuids = text
      .slice(0, -1)
      .split("\n")
      .map((line, i) => parseAtofLine(line, i + 1).uuid);
    out.push({ name, uuids, bytes: Buffer.byteLength(text) });
  }
  return out;
}

/** One line's bytes for `markEvent(uuid)` (all test uuids have the same length). */
async function lineBytesOf(dir: string): Promise<number> {
  const probe = new AtofExporter({ type: "file", outputDirectory: dir, path: "probe.json-lines" });
  probe.onEvent(markEvent("e-000"));
  await probe.shutdown();
  const bytes = (await stat(join(dir, "probe.json-lines"))).size;
  await rm(join(dir, "probe.json-lines"));
  return bytes;
}

const uuid = (i: number) => `e-${String(i).padStart(3, "0")}`;

describe("ATOF file rotation (real files)", () => {
  it("maxBytes: a new file starts before a line would pass the limit; no line is split; names sort in write order", async () => {
    const dir = await freshDir();
    const line = await lineBytesOf(dir);
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: Math.floor(line * 3.5) } });
    for (let i = 0; i < 10; i++) exporter.onEvent(markEvent(uuid(i)));
    await exporter.shutdown();
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids.length)).toEqual([3, 3, 3, 1]);
    expect(files.flatMap((f) => f.uuids)).toEqual(Array.from({ length: 10 }, (_, i) => uuid(i)));
    for (const f of files) {
      expect(f.bytes).toBeLessThanOrEqual(Math.floor(line * 3.5));
      expect(f.name).toMatch(/^relaytrace-atof\.\d{8}T\d{9}Z\.jsonl$/);
    }
    expect(exporter.filePath).toBe(join(dir, files.at(-1)!.name));
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("maxBytes across batches: each flushed batch continues the current file until it is full", async () => {
    const dir = await freshDir();
    const line = await lineBytesOf(dir);
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, path: "app.jsonl", rotate: { maxBytes: line * 2 } });
    for (let i = 0; i < 5; i++) {
      exporter.onEvent(markEvent(uuid(i)));
      await exporter.forceFlush();
    }
    await exporter.shutdown();
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids)).toEqual([[uuid(0), uuid(1)], [uuid(2), uuid(3)], [uuid(4)]]);
    for (const f of files) expect(f.name).toMatch(/^app\.\d{8}T\d{9}Z\.jsonl$/);
  });

  it("a line longer than maxBytes is written whole, alone in a file of its own", async () => {
    const dir = await freshDir();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 1000 } });
    exporter.onEvent(markEvent(uuid(0)));
    exporter.onEvent(markEvent(uuid(1), { big: "x".repeat(5000) }));
    exporter.onEvent(markEvent(uuid(2)));
    await exporter.shutdown();
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids)).toEqual([[uuid(0)], [uuid(1)], [uuid(2)]]);
    expect(files[1]!.bytes).toBeGreaterThan(5000);
  });

  it("maxAgeMs: the first write after the file is older than the limit starts a new file (clock injected)", async () => {
    const dir = await freshDir();
    const clock = manualClock();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxAgeMs: 60_000 } }, { now: clock.now });
    exporter.onEvent(markEvent(uuid(0)));
    await exporter.forceFlush();
    clock.advance(60_000); // exactly the limit: not older yet
    exporter.onEvent(markEvent(uuid(1)));
    await exporter.forceFlush();
    clock.advance(1);
    exporter.onEvent(markEvent(uuid(2)));
    await exporter.forceFlush();
    clock.advance(10 * 60_000); // idle for long: still one new file at the next write, not one per interval
    exporter.onEvent(markEvent(uuid(3)));
    await exporter.shutdown();
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids)).toEqual([[uuid(0), uuid(1)], [uuid(2)], [uuid(3)]]);
    // Names carry the file's start time: plain string order is write order.
    expect(files.map((f) => f.name)).toEqual([
      "relaytrace-atof.20260301T120000000Z.jsonl",
      "relaytrace-atof.20260301T120100001Z.jsonl",
      "relaytrace-atof.20260301T121100001Z.jsonl",
    ]);
  });

  it("names keep sorting in write order when files start in the same millisecond or the clock goes back", async () => {
    const dir = await freshDir();
    const clock = manualClock();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 1 } }, { now: clock.now });
    for (let i = 0; i < 3; i++) exporter.onEvent(markEvent(uuid(i)));
    await exporter.forceFlush();
    clock.advance(-3_600_000);
    exporter.onEvent(markEvent(uuid(3)));
    await exporter.shutdown();
    // A restarted process whose clock is behind still sorts after the files already there.
    const next = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 1 } }, { now: clock.now });
    next.onEvent(markEvent(uuid(4)));
    await next.shutdown();
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids)).toEqual([[uuid(0)], [uuid(1)], [uuid(2)], [uuid(3)], [uuid(4)]]);
    expect(new Set(files.map((f) => f.name)).size).toBe(5);
  });

  it("keep: K leaves at most K closed files besides the current one, the oldest removed first, and nothing else", async () => {
    const dir = await freshDir();
    const line = await lineBytesOf(dir);
    // A user's own files beside the set, some named almost like it, are never touched.
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    const foreign = [
      "notes.jsonl",
      "relaytrace-atof.jsonl",
      "relaytrace-atof.backup.jsonl",
      "relaytrace-atof.20200101T000000000Z.jsonl.bak",
    ];
    for (const name of foreign) await writeFile(join(dir, name), "keep me\n");
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: line, keep: 2 } });
    for (let i = 0; i < 6; i++) {
      exporter.onEvent(markEvent(uuid(i)));
      await exporter.forceFlush();
    }
    const ours = (await readdir(dir)).filter((f) => /^relaytrace-atof\.\d{8}T\d{9}Z\.jsonl$/.test(f)).sort();
    expect(ours).toHaveLength(3); // two closed + the current one
    expect(join(dir, ours.at(-1)!)).toBe(exporter.filePath);
    await exporter.shutdown();
    const contents = await Promise.all(ours.map((f) => readFile(join(dir, f), "utf8")));
    expect(contents.map((t) => parseAtofLine(t.trim(), 1).uuid)).toEqual([uuid(3), uuid(4), uuid(5)]);
    for (const name of foreign) expect(await readFile(join(dir, name), "utf8")).toBe("keep me\n");
    expect((await readdir(dir)).filter((f) => f.endsWith(".lock"))).toEqual([]);
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("keep counts the files earlier runs left (a restarted process), and keep: 0 leaves only the current file", async () => {
    const dir = await freshDir();
    for (let run = 0; run < 3; run++) {
      const exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 1, keep: 0 } });
      exporter.onEvent(markEvent(uuid(2 * run)));
      exporter.onEvent(markEvent(uuid(2 * run + 1)));
      await exporter.shutdown();
      const files = await filesOf(dir);
      // At shutdown the last file is still the current one: the older ones are gone.
      expect(files.map((f) => f.uuids)).toEqual([[uuid(2 * run + 1)]]);
    }
  });

  it("unset, nothing changes: one file with the default name, no rotation", async () => {
    const dir = await freshDir();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, maxBufferedLines: 5 });
    for (let i = 0; i < 20; i++) exporter.onEvent(markEvent(uuid(i)));
    await exporter.shutdown();
    const files = await filesOf(dir);
    expect(files).toHaveLength(1);
    expect(files[0]!.name).toMatch(/^relaytrace-atof-\d{8}T\d{6}Z-\d+(-\d+)?\.jsonl$/);
    expect(files[0]!.uuids).toHaveLength(20);
  });

  it("a bad rotate value is a TypeError naming it, what it must be and what it got", () => {
    const dir = join(root, "never-created");
    const make =
      (rotate: unknown, extra: object = {}) =>
      () =>
        new AtofExporter({ type: "file", outputDirectory: dir, rotate, ...extra } as never);
    expect(make({ maxBytes: -1 })).toThrow(new TypeError("AtofExporter: rotate.maxBytes must be a positive integer (got -1)"));
    expect(make({ maxBytes: "10MB" })).toThrow(new TypeError('AtofExporter: rotate.maxBytes must be a positive integer (got "10MB")'));
    expect(make({ maxAgeMs: -5 })).toThrow(new TypeError("AtofExporter: rotate.maxAgeMs must be a positive finite number (got -5)"));
    expect(make({ maxAgeMs: Infinity })).toThrow(/rotate\.maxAgeMs must be a positive finite number \(got Infinity\)/);
    expect(make({ keep: -1 })).toThrow(new TypeError("AtofExporter: rotate.keep must be a non-negative integer (got -1)"));
    expect(make({ keep: 1.5 })).toThrow(/rotate\.keep must be a non-negative integer \(got 1\.5\)/);
    expect(make({ maxSize: 10 })).toThrow(TypeError);
    expect(make({ maxSize: 10 })).toThrow(/unknown option "rotate\.maxSize"/);
    expect(make(true)).toThrow(new TypeError("AtofExporter: rotate must be an object (got true)"));
    expect(make({ maxBytes: 10 }, { mode: "overwrite" })).toThrow(/mode must be "append" when rotate is set \(got "overwrite"\)/);
    expect(existsSync(dir)).toBe(false);
  });

  it("two exporters of one process rotating the same set each write their own files, never one file together", async () => {
    const dir = await freshDir();
    const clock = manualClock();
    const a = new AtofExporter({ type: "file", outputDirectory: dir, path: "shared.jsonl", rotate: { maxBytes: 1 } }, { now: clock.now });
    const b = new AtofExporter({ type: "file", outputDirectory: dir, path: "shared.jsonl", rotate: { maxBytes: 1 } }, { now: clock.now });
    expect(a.filePath).not.toBe(b.filePath);
    a.onEvent(markEvent("a-0"));
    b.onEvent(markEvent("b-0"));
    await Promise.all([a.shutdown(), b.shutdown()]);
    const files = await filesOf(dir);
    expect(files.map((f) => f.uuids.length)).toEqual([1, 1]);
  });
});
