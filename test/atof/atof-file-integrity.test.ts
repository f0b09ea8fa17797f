import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { streamAtofFile, TORN_LAST_LINE } from "../../src/events/atof-reader.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import type { AtofWarning } from "../../src/events/atof-errors.js";
import type { AtofEvent } from "../../src/events/types.js";
import { markEvent } from "../support/atof-files.js";
import { startNode, waitForOutput } from "../support/child-process.js";

const BIG_WRITER = fileURLToPath(new URL("../fixtures-procs/atof-big-writer.mjs", import.meta.url));
const EXIT_WRITER = fileURLToPath(new URL("../fixtures-procs/atof-exit-writer.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/exporters/atof/index.js", import.meta.url)));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-integrity-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every line of the file is a whole ATOF event and the file ends with a line end. */
async function wholeLines(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  if (text === "") return [];
  expect(text.endsWith("\n")).toBe(true);
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, i) => parseAtofLine(line, i + 1));
  return lines;
}

async function readAll(path: string): Promise<{ events: AtofEvent[]; warnings: AtofWarning[] }> {
  const events: AtofEvent[] = [];
  const warnings: AtofWarning[] = [];
  for await (const event of streamAtofFile(path, { onWarning: (w) => warnings.push(w) })) events.push(event);
  return { events, warnings };
}

describe.skipIf(!built)("a writer killed in the middle of an 8 MB line (real SIGKILL of a child process)", () => {
  it(
    "readers see only whole events, and the next sink on the file cuts the torn tail off and reports it",
    { timeout: 120_000 },
    async () => {
      const path = join(dir, "killed.jsonl");
      // The child writes half of an 8 MB line, says so and blocks: the kill lands inside that write.
      const child = startNode(BIG_WRITER, [path]);
      await waitForOutput(child, "ready");
      await waitForOutput(child, "inside-write");
      child.process.kill("SIGKILL");
      expect((await child.exited).signal).toBe("SIGKILL");
      const bytes = await readFile(path);
      expect(bytes.length).toBeGreaterThan(4 * 1024 * 1024);
      expect(bytes[bytes.length - 1]).not.toBe(0x0a); // torn: the last line has no end

      const before = await readAll(path);
      expect(before.events.length).toBeGreaterThanOrEqual(4); // two calls were flushed before "ready"
      expect(before.warnings.map((w) => w.code)).toContain(TORN_LAST_LINE);
      for (const event of before.events) expect(event.kind).toBe("scope");

      const next = new AtofExporter({ type: "file", path });
      next.onEvent(markEvent("after-restart"));
      await next.shutdown();
      const lines = await wholeLines(path);
      expect(lines).toHaveLength(before.events.length + 1);
      expect(JSON.parse(lines.at(-1)!).uuid).toBe("after-restart");
      expect(next.diagnostics().find((d) => d.code === "atof.torn_tail_repaired")?.message).toMatch(
        /removed \d+ bytes of an incomplete last line/,
      );
      await rm(path, { force: true });
    },
  );

  it("a last event another producer wrote without its line end is kept and terminated, not cut", async () => {
    const path = join(dir, "unterminated.jsonl");
    await writeFile(path, JSON.stringify(markEvent("foreign")));
    const exporter = new AtofExporter({ type: "file", path });
    exporter.onEvent(markEvent("ours"));
    await exporter.shutdown();
    expect((await wholeLines(path)).map((l) => JSON.parse(l).uuid)).toEqual(["foreign", "ours"]);
    expect(exporter.diagnostics().find((d) => d.code === "atof.torn_tail_repaired")?.message).toMatch(/added the missing line end/);
  });
});

describe.skipIf(!built)("process.exit() right after events were handed to the file sink", () => {
  it("writes every line the sink holds synchronously before the process ends", async () => {
    const path = join(dir, "exit.jsonl");
    const child = startNode(EXIT_WRITER, [path, "500"]);
    expect((await child.exited).code).toBe(0);
    const lines = await wholeLines(path);
    expect(lines.map((l) => JSON.parse(l).uuid)).toEqual(Array.from({ length: 500 }, (_, i) => `m${i}`));
  });

  it("also writes events handed over by 'exit' listeners that run after the sink's own (a runtime draining its queue)", async () => {
    const path = join(dir, "exit-late.jsonl");
    const child = startNode(EXIT_WRITER, [path, "3", "200"]);
    expect((await child.exited).code).toBe(0);
    const uuids = (await wholeLines(path)).map((l) => JSON.parse(l).uuid);
    expect(uuids).toEqual([...["m0", "m1", "m2"], ...Array.from({ length: 200 }, (_, i) => `late${i}`)]);
  });
});

function canMountTmpfs(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  try {
    execFileSync("mount", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!canMountTmpfs())("a full disk (a real 1 MiB tmpfs)", () => {
  it("an event counted as dropped leaves no bytes behind: the file holds whole lines, and lines + dropped = events", async () => {
    const mountPoint = join(dir, "small-fs");
    await mkdir(mountPoint);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], { stdio: "pipe" });
    } catch (error) {
      console.info(`tmpfs mount not permitted here, skipped: ${(error as Error).message}`);
      return;
    }
    try {
      const path = join(mountPoint, "events.jsonl");
      const exporter = new AtofExporter({ type: "file", path });
      const payload = "d".repeat(120 * 1024); // lines of ~120 KB: the disk fills in the middle of one
      const total = 20;
      for (let i = 0; i < total; i++) {
        exporter.onEvent(markEvent(`m${i}`, { payload }));
        await new Promise((r) => setImmediate(r)); // one batch per event: some whole, one cut, the rest refused
      }
      await exporter.shutdown();
      const lines = await wholeLines(path);
      const dropped = exporter.diagnostics().find((d) => d.code === "atof.events_dropped")?.count ?? 0;
      expect(dropped).toBeGreaterThan(0);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length + dropped).toBe(total);
      expect(lines.map((l) => JSON.parse(l).uuid)).toEqual(Array.from({ length: lines.length }, (_, i) => `m${i}`));
      expect((await stat(path)).size).toBe(lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
      expect(exporter.diagnostics().find((d) => d.code === "atof.write_failed")?.message).toMatch(/ENOSPC/);
    } finally {
      execFileSync("umount", [mountPoint]);
    }
  });
});

describe("one writer per file, and no symlink following unless asked", () => {
  it("refuses a second file sink on a path another sink of this process writes, in either mode, until the first shuts down", async () => {
    const path = join(dir, "shared.jsonl");
    const first = new AtofExporter({ type: "file", path, mode: "overwrite" });
    expect(() => new AtofExporter({ type: "file", path, mode: "overwrite" })).toThrow(
      /already written by another file sink in this process; one writer per file/,
    );
    expect(() => new AtofExporter({ type: "file", path: "shared.jsonl", outputDirectory: dir })).toThrow(/one writer per file/);
    await mkdir(join(dir, "real"), { recursive: true });
    await symlink(join(dir, "real"), join(dir, "alias"));
    const viaReal = new AtofExporter({ type: "file", path: join(dir, "real", "x.jsonl") });
    expect(() => new AtofExporter({ type: "file", path: join(dir, "alias", "x.jsonl") })).toThrow(/one writer per file/);
    first.onEvent(markEvent("one"));
    await first.shutdown();
    await viaReal.shutdown();
    const second = new AtofExporter({ type: "file", path, mode: "overwrite" });
    second.onEvent(markEvent("two"));
    await second.shutdown();
    expect((await wholeLines(path)).map((l) => JSON.parse(l).uuid)).toEqual(["two"]);
  });

  it("refuses a symlink planted at the path, before or after construction, unless followSymlinks is true", async () => {
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "precious\n");
    const planted = join(dir, "planted.jsonl");
    await symlink(victim, planted);
    expect(() => new AtofExporter({ type: "file", path: planted })).toThrow(
      /is a symbolic link; the file sink does not follow links unless followSymlinks is true/,
    );

    const late = join(dir, "late.jsonl");
    const exporter = new AtofExporter({ type: "file", path: late });
    await symlink(victim, late); // planted between construction and the first write
    exporter.onEvent(markEvent("x"));
    await exporter.shutdown();
    expect(await readFile(victim, "utf8")).toBe("precious\n");
    expect(exporter.diagnostics().find((d) => d.code === "atof.write_failed")?.message).toMatch(/symbolic link/);
    expect(exporter.diagnostics().find((d) => d.code === "atof.events_dropped")?.count).toBe(1);

    const allowed = new AtofExporter({ type: "file", path: planted, followSymlinks: true });
    allowed.onEvent(markEvent("through-link"));
    await allowed.shutdown();
    expect((await readFile(victim, "utf8")).split("\n")[1]).toContain("through-link");
  });
});

describe.skipIf(!existsSync("/proc/self"))("a location that can never be written (/proc)", () => {
  it("an exporter under /proc: shutdown() returns, with a diagnostic naming the path", async () => {
    const exporter = new AtofExporter({ type: "file", path: "/proc/relaytrace-x/events.jsonl" });
    for (let i = 0; i < 50; i++) exporter.onEvent(markEvent(`m${i}`));
    await exporter.shutdown();
    const codes = new Map(exporter.diagnostics().map((d) => [d.code, d]));
    expect(codes.get("atof.write_failed")?.message).toMatch(/\/proc\/relaytrace-x/);
    expect(codes.get("atof.events_dropped")?.count).toBe(50);
  });

  it.skipIf(!built)("relaytrace demo --out /proc/x returns at once: one line, exit 2", async () => {
    const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
    const child = startNode(CLI, ["demo", "--out", "/proc/relaytrace-x"]);
    const { code } = await child.exited;
    expect(code).toBe(2);
    expect(child.stdout()).toBe("");
    expect(child.stderr()).toMatch(/^relaytrace: cannot use \/proc\/relaytrace-x for the output files: [^\n]+\n$/);
  });

  it("an AtifExporter under /proc counts atif.write_failed and shuts down", async () => {
    const { AtifExporter } = await import("../../exporters/atif/index.js");
    const { createRuntime } = await import("../../src/runtime/runtime.js");
    const runtime = createRuntime();
    const exporter = new AtifExporter({ agent: { name: "a", version: "1" }, outputDirectory: "/proc/relaytrace-x/atif" });
    exporter.register(runtime);
    await runtime.withScope("run", () => "done", { category: "agent", input: { prompt: "q" } });
    await runtime.shutdown();
    expect(exporter.diagnostics().find((d) => d.code === "atif.write_failed")?.message).toMatch(/\/proc\/relaytrace-x/);
  });
});
