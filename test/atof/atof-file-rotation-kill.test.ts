import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import { streamAtofFile, TORN_LAST_LINE } from "../../src/events/atof-reader.js";
import { markEvent } from "../support/atof-files.js";
import { startNode, waitForOutput, type Child } from "../support/child-process.js";

const WRITER = fileURLToPath(new URL("../fixtures-procs/atof-rotating-writer.mjs", import.meta.url));
const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/exporters/atof/index.js", import.meta.url)));
const run = promisify(execFile);

let root: string;
let n = 0;
const children: Child[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "relaytrace-rotation-kill-"));
});
afterEach(() => {
  for (const child of children.splice(0))
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function setFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith(".jsonl")).sort();
}

/** A closed file: ends with a line end, every line a whole event, and `relaytrace validate` passes it alone. */
async function expectWholeAndValid(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n"), `${path} ends with a line end`).toBe(true);
  const { stdout } = await run(process.execPath, [CLI, "validate", path]);
  expect(stdout).toContain("valid ATOF");
  return text
    .slice(0, -1)
    .split("\n")
    .map((line, i) => parseAtofLine(line, i + 1).uuid);
}

/** The events' numbers follow on without a gap from file to file. */
function expectConsecutive(uuids: string[]): void {
  expect(uuids).toEqual(uuids.map((_, i) => `e-${i}`));
}

async function killAt(stop: "mid-rotation" | "writing"): Promise<{ dir: string; sentinel: string }> {
  const dir = join(root, `d${n++}`);
  const child = startNode(WRITER, [dir, stop]);
  children.push(child);
  const sentinel = stop === "mid-rotation" ? "mid-rotation " : "rotated";
  await waitForOutput(child, sentinel);
  child.process.kill("SIGKILL");
  expect((await child.exited).signal).toBe("SIGKILL");
  return { dir, sentinel: child.stdout() };
}

describe.skipIf(!built)("a rotating writer killed with SIGKILL (built package in a child process)", () => {
  it("killed inside a rotation: every file written is whole and valid on its own, no event missing between files", async () => {
    const { dir, sentinel } = await killAt("mid-rotation");
    const closed = sentinel.trim().slice("mid-rotation ".length);
    const files = await setFiles(dir);
    // Killed between two files: the one just closed is the newest; the next was never created.
    expect(files.length).toBe(3);
    expect(join(dir, files.at(-1)!)).toBe(closed);
    const uuids: string[] = [];
    for (const f of files) uuids.push(...(await expectWholeAndValid(join(dir, f))));
    expectConsecutive(uuids);
    // Its claim was given up before the kill; a restarted writer starts the next file, after the others.
    expect((await readdir(dir)).filter((f) => f.endsWith(".lock"))).toEqual([]);
    const next = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 16 * 1024 } });
    next.onEvent(markEvent("after"));
    await next.shutdown();
    const after = await setFiles(dir);
    expect(after.slice(0, -1)).toEqual(files);
    expect(await expectWholeAndValid(join(dir, after.at(-1)!))).toEqual(["after"]);
    expect(next.diagnostics()).toEqual([]);
  });

  it("killed while writing: closed files are whole, the current one ends in a whole line or is repaired by the next writer", async () => {
    const { dir } = await killAt("writing");
    const files = await setFiles(dir);
    expect(files.length).toBeGreaterThanOrEqual(3);
    const uuids: string[] = [];
    for (const f of files.slice(0, -1)) uuids.push(...(await expectWholeAndValid(join(dir, f))));
    // The current file: every whole line is an event; a torn last line is skipped by readers, with a warning.
    const current = join(dir, files.at(-1)!);
    const text = await readFile(current, "utf8");
    const whole = text.slice(0, text.lastIndexOf("\n") + 1);
    const warnings: string[] = [];
    for await (const event of streamAtofFile(current, { onWarning: (w) => warnings.push(w.code) })) uuids.push(event.uuid);
    expect(warnings).toEqual(whole === text ? [] : [TORN_LAST_LINE]);
    expectConsecutive(uuids);

    // The next writer of the set takes over the dead claim, repairs the torn tail, and starts a new file.
    const next = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 16 * 1024 } });
    next.onEvent(markEvent("after"));
    await next.shutdown();
    const after = await setFiles(dir);
    expect(after.slice(0, -1)).toEqual(files);
    for (const f of after) await expectWholeAndValid(join(dir, f));
    const codes = next.diagnostics().map((d) => d.code);
    expect(codes.filter((c) => c !== "atof.stale_claim_removed" && c !== "atof.torn_tail_repaired")).toEqual([]);
    expect(codes.includes("atof.torn_tail_repaired")).toBe(whole !== text);
  });
});
