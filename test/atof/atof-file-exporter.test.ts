import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { markEvent as mark } from "../support/atof-files.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-file-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function scope(category: "start" | "end", uuid: string, data: ScopeEvent["data"] = null): ScopeEvent {
  return {
    kind: "scope",
    scope_category: category,
    atof_version: "0.1",
    uuid,
    parent_uuid: "root",
    timestamp: category === "start" ? "2026-03-01T12:00:00.000001Z" : "2026-03-01T12:00:00.000002Z",
    name: "step",
    attributes: [],
    category: "function",
    category_profile: null,
    data,
    data_schema: null,
    metadata: null,
  };
}

async function linesOf(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n");
}

describe("AtofExporter file sink", () => {
  it("writes every event as one valid JSON line, in order, durable after forceFlush", async () => {
    const exporter = new AtofExporter({ type: "file", path: join(dir, "order.jsonl") });
    const events: AtofEvent[] = [];
    for (let i = 0; i < 3000; i++) events.push(mark(`m${i}`, { i, text: "héllo\nworld \u2028" }));
    exporter.export(events.slice(0, 1000));
    await new Promise((r) => setImmediate(r));
    exporter.export(events.slice(1000));
    await exporter.forceFlush();
    const lines = await linesOf(exporter.filePath!);
    expect(lines).toHaveLength(3000);
    expect(lines.map((l) => JSON.parse(l).uuid)).toEqual(events.map((e) => e.uuid));
    // The file reads back through our own strict reader.
    expect(parseAtof(lines.join("\n")).events[2999]).toEqual(events[2999]);
    expect(exporter.diagnostics()).toEqual([]);
    await exporter.shutdown();
  });

  it("appends to an existing file by default and truncates it with mode overwrite", async () => {
    const path = join(dir, "modes.jsonl");
    await writeFile(path, JSON.stringify(mark("old", null)) + "\n");

    const appender = new AtofExporter({ type: "file", path });
    appender.onEvent(scope("start", "a"));
    await appender.shutdown();
    expect((await linesOf(path)).map((l) => JSON.parse(l).uuid)).toEqual(["old", "a"]);

    const overwriter = new AtofExporter({ type: "file", path, mode: "overwrite" });
    overwriter.onEvent(scope("start", "b"));
    await overwriter.forceFlush();
    overwriter.onEvent(scope("end", "b"));
    await overwriter.shutdown();
    // Truncation happens once, on first open; later batches append.
    expect((await linesOf(path)).map((l) => JSON.parse(l).uuid)).toEqual(["b", "b"]);
  });

  it("names the default file with a timestamp and pid inside a created output directory", async () => {
    const outputDirectory = join(dir, "nested", "deeper");
    const exporter = new AtofExporter({ type: "file", outputDirectory });
    expect(exporter.filePath).toMatch(/relaytrace-atof-\d{8}T\d{6}Z-\d+(-\d+)?\.jsonl$/);
    expect(exporter.filePath!.startsWith(outputDirectory)).toBe(true);
    exporter.onEvent(scope("start", "x"));
    await exporter.shutdown();
    expect(await readdir(outputDirectory)).toEqual([exporter.filePath!.slice(outputDirectory.length + 1)]);
  });

  it("turns an unwritable directory into a diagnostic, never an exception", async () => {
    const blocker = join(dir, "not-a-directory");
    await writeFile(blocker, "x");
    const exporter = new AtofExporter({ type: "file", outputDirectory: join(blocker, "sub") });
    expect(() => exporter.export([scope("start", "a"), scope("end", "a")])).not.toThrow();
    await expect(exporter.forceFlush()).resolves.toBeUndefined();
    const diags = exporter.diagnostics();
    expect(diags.find((d) => d.code === "atof.write_failed")?.message).toMatch(/ENOTDIR|not a directory/i);
    expect(diags.find((d) => d.code === "atof.events_dropped")?.count).toBe(2);
    await expect(exporter.shutdown()).resolves.toBeUndefined();
  });

  it("keeps a small buffer without losing events when the app never yields: past half of it, it writes synchronously", async () => {
    const exporter = new AtofExporter({ type: "file", path: join(dir, "bounded.jsonl"), maxBufferedLines: 10 });
    for (let i = 0; i < 25; i++) exporter.onEvent(mark(`m${i}`, i));
    // Before any event-loop turn: everything past the high-water mark is already on disk, in order.
    const early = (await readFile(exporter.filePath!, "utf8")).trim().split("\n");
    expect(early.length).toBeGreaterThanOrEqual(20);
    await exporter.shutdown();
    expect((await linesOf(exporter.filePath!)).map((l) => JSON.parse(l).uuid)).toEqual(Array.from({ length: 25 }, (_, i) => `m${i}`));
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("writes every line byte for byte and in order, however many arrive between writes and whatever text they hold", async () => {
    const exporter = new AtofExporter({ type: "file", path: join(dir, "many.jsonl"), maxBufferedLines: 1000 });
    const texts = ["plain", "caf\u00e9", "\u20ac".repeat(300), "\ud83d\ude00 emoji", 'quo"te\n', "x".repeat(5000)];
    const events = Array.from({ length: 700 }, (_, i) => mark(`m${i}`, { text: texts[i % texts.length]!, i }));
    events.slice(0, 130).forEach((e) => exporter.onEvent(e));
    await exporter.forceFlush(); // a write between two lines of one batch
    events.slice(130).forEach((e) => exporter.onEvent(e));
    await exporter.shutdown();
    expect(await readFile(exporter.filePath!, "utf8")).toBe(events.map((e) => `${JSON.stringify(e)}\n`).join(""));
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("counts an event it cannot serialize and keeps writing the others", async () => {
    const exporter = new AtofExporter({ type: "file", path: join(dir, "bad-event.jsonl") });
    exporter.onEvent(mark("ok1", 1));
    exporter.onEvent({ ...mark("bad", null), data: 10n } as unknown as AtofEvent);
    exporter.onEvent(mark("ok2", 2));
    await exporter.shutdown();
    expect((await linesOf(exporter.filePath!)).map((l) => JSON.parse(l).uuid)).toEqual(["ok1", "ok2"]);
    expect(exporter.diagnostics()).toEqual([expect.objectContaining({ code: "atof.serialize_failed", count: 1 })]);
  });

  it("registers as a lifecycle exporter, shuts down once and counts events delivered afterwards", async () => {
    let lifecycle: unknown;
    let name = "";
    const runtime = {
      subscribe(subscriber: string, _cb: (e: AtofEvent) => void, options?: { exporter?: unknown }) {
        name = subscriber;
        lifecycle = options?.exporter;
        return () => true;
      },
    };
    const exporter = new AtofExporter({ type: "file", path: join(dir, "shutdown.jsonl") });
    expect(exporter.register(runtime)()).toBe(true);
    expect(name).toMatch(/^atof#\d+$/);
    expect(lifecycle).toBe(exporter);
    const first = exporter.shutdown();
    expect(exporter.shutdown()).toBe(first);
    await first;
    exporter.onEvent(mark("late", null));
    expect(exporter.diagnostics()).toEqual([expect.objectContaining({ code: "atof.events_dropped", count: 1 })]);
  });

  it("rejects bad configuration up front with a TypeError", () => {
    expect(() => new AtofExporter({ type: "file", mode: "replace" as "append" })).toThrow(/mode must be/);
    expect(() => new AtofExporter({ type: "ftp" } as never)).toThrow(/type must be/);
  });
});
