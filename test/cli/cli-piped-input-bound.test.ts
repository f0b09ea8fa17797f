// Input that can be read only once (a pipe, a character device, standard input) is copied to a
// scratch file before a command reads it; the copy is bounded (RELAYTRACE_MAX_PIPED_INPUT_BYTES,
// set small here), so `/dev/zero` or a pipe that never ends is refused with one line and exit
// status 2 instead of filling the disk. Each child runs under `ulimit -f` (64 MiB): a copy that
// ran past the bound would fail there, never fill the machine's disk.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { namedPipeFrom, scopeLine, writeLines } from "../support/atof-files.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const work = useScratchTmpdir("relaytrace-piped-bound-");
const LIMIT = 1024 * 1024;

/** Writers this file started, ended after each test by their own pid. */
const writers: ChildProcess[] = [];
afterEach(() => {
  for (const w of writers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a program under a 64 MiB file-size limit, with the copy bound at `limit` and `stdin` as its standard input. */
function cli(args: string[], options: { limit?: string; stdin?: "ignore" | NodeJS.ReadableStream } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", 'ulimit -f 65536 && exec "$@"', "cli", process.execPath, CLI, ...args], {
      cwd: work.dir,
      stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
      env: { ...process.env, TMPDIR: work.scratch, RELAYTRACE_MAX_PIPED_INPUT_BYTES: options.limit ?? String(LIMIT) },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A process writing `line` into `fifo` (or its stdout) for as long as anyone reads: `yes`. */
function endlessWriter(line: string, fifo?: string): ChildProcess {
  const writer = fifo
    ? spawn("sh", ["-c", 'exec yes "$0" > "$1"', line, fifo], { stdio: "ignore" })
    : spawn("yes", [line], { stdio: ["ignore", "pipe", "ignore"] });
  writers.push(writer);
  return writer;
}

function refusal(name: string, limit = LIMIT): string {
  return (
    `relaytrace: ${name} is longer than ${limit.toLocaleString("en-US")} bytes, the most a pipe or device is copied to a ` +
    "temporary file before it is read (RELAYTRACE_MAX_PIPED_INPUT_BYTES sets it): save it to a file and pass the file\n"
  );
}

async function expectRefused(run: Run, name: string): Promise<void> {
  expect(run.stderr).toBe(refusal(name));
  expect(run.stdout).toBe("");
  expect(run.code).toBe(2);
  expect(await readdir(work.scratch)).toEqual([]); // the partial copy went with the command
}

const EVENT = scopeLine("start", "s", null, 1_772_366_400_000_000);

describe("the copy of a pipe or device is bounded", () => {
  const commands: [string, string[]][] = [
    ["convert", ["convert", "/dev/zero", "--to", "tree"]],
    ["validate", ["validate", "/dev/zero"]],
    ["tree", ["tree", "/dev/zero"]],
    ["view", ["view", "/dev/zero", "-o", "page.html"]],
    ["send", ["send", "/dev/zero", "--otlp", "http://127.0.0.1:9/v1/traces"]],
    ["replay", ["replay", "/dev/zero"]],
    ["diff", ["diff", "/dev/zero", "/dev/zero"]],
  ];
  for (const [name, args] of commands) {
    it(`${name} refuses /dev/zero at the bound with one line and exit status 2`, { timeout: 30_000 }, async () => {
      await expectRefused(await cli(args), "/dev/zero");
    });
  }

  for (const name of ["tree", "replay", "diff"]) {
    it(`${name} refuses a named pipe whose writer never stops`, { timeout: 30_000 }, async () => {
      const fifo = join(work.dir, `${name}-endless.fifo`);
      execFileSync("mkfifo", [fifo]);
      endlessWriter(EVENT, fifo);
      const args = name === "diff" ? ["diff", fifo, "/dev/null"] : [name, fifo];
      await expectRefused(await cli(args), fifo);
    });
  }

  it("refuses standard input (-) that never ends", { timeout: 30_000 }, async () => {
    const writer = endlessWriter(EVENT);
    await expectRefused(await cli(["tree", "-"], { stdin: writer.stdout! }), "standard input");
  });

  it("reads a piped input exactly as long as the bound, and refuses one byte more", { timeout: 30_000 }, async () => {
    const file = join(work.dir, "small.jsonl");
    await writeLines(file, [EVENT, scopeLine("end", "s", null, 1_772_366_400_000_001)]);
    const size = (await stat(file)).size;
    const fits = await cli(["validate", namedPipeFrom(work.dir, "fits.fifo", file)], { limit: String(size) });
    expect(fits.stdout).toMatch(/fits\.fifo: valid ATOF \(2 events\)/);
    expect(fits.code).toBe(0);
    const over = await cli(["validate", namedPipeFrom(work.dir, "over.fifo", file)], { limit: String(size - 1) });
    expect(over.stderr).toBe(refusal(join(work.dir, "over.fifo"), size - 1));
    expect(over.code).toBe(2);
  });

  it("takes the bound in bytes: anything else is one line and exit status 2", async () => {
    const run = await cli(["tree", "/dev/zero"], { limit: "1GB" });
    expect(run.stderr).toBe('relaytrace: RELAYTRACE_MAX_PIPED_INPUT_BYTES must be a whole number of bytes above 0 (got "1GB")\n');
    expect(run.code).toBe(2);
  });
});
