import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { validateAtif } from "../../exporters/atif/index.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import { streamAtofFile, TORN_LAST_LINE } from "../../src/events/atof-reader.js";

const script = fileURLToPath(new URL("../fixtures-procs/atof-writer.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/exporters/atof/index.js", import.meta.url)));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Starts the writer, waits for "ready", lets it write a little longer, then SIGKILLs it. */
async function killMidRun(atofPath: string, atifDir: string, extraMs: number): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [script, atofPath, atifDir], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      if (c.toString().includes("ready")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, extraMs));
  child.kill("SIGKILL");
  return exited;
}

describe.skipIf(!built)("SIGKILL in the middle of a run (built package in a child process)", () => {
  for (const extraMs of [0, 15, 40]) {
    it(`every ATOF line is complete JSON and every ATIF file is whole (killed ${extraMs} ms after ready)`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "relaytrace-kill-"));
      dirs.push(dir);
      const atofPath = join(dir, "events.jsonl");
      const atifDir = join(dir, "atif");
      expect(await killMidRun(atofPath, atifDir, extraMs)).toBe("SIGKILL");

      const text = await readFile(atofPath, "utf8");
      // Every line is one valid ATOF event, except that a kill landing inside a write (a batch of
      // hundreds of KB) may leave part of the last one: readers skip that part, never return it.
      const whole = text.slice(0, text.lastIndexOf("\n") + 1);
      const lines = whole.slice(0, -1).split("\n");
      expect(lines.length).toBeGreaterThan(20);
      lines.forEach((line, i) => parseAtofLine(line, i + 1));
      const warnings: string[] = [];
      let read = 0;
      for await (const event of streamAtofFile(atofPath, { onWarning: (w) => warnings.push(w.code) })) read += event.uuid ? 1 : 0;
      expect(read).toBe(lines.length);
      expect(warnings).toEqual(whole === text ? [] : [TORN_LAST_LINE]);

      // Completed runs: each ATIF file that exists parses and validates (temp files are hidden dot-files).
      const files = (await readdir(atifDir)).filter((f) => f.endsWith(".json") && !f.startsWith("."));
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const f of files) {
        const doc: unknown = JSON.parse(await readFile(join(atifDir, f), "utf8"));
        expect(validateAtif(doc).errors).toEqual([]);
      }
      const leftovers = (await readdir(atifDir)).filter((f) => f.endsWith(".tmp"));
      console.info(`killed +${extraMs} ms: ${lines.length} ATOF lines, ${files.length} ATIF files, ${leftovers.length} temp file(s) left`);
    });
  }
});
