import { spawn } from "node:child_process";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";
import { validateAtif } from "../../exporters/atif/validate.js";
import { main } from "../../src/cli/main.js";
import { namedPipeFrom, nestedScopes, writeLines } from "../support/atof-files.js";
import { capturedIo } from "../support/cli-io.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../fixtures/nat-atof/", import.meta.url));
const ATOF = join(FIXTURES, "exmp01_atof.jsonl");
const ATIF = join(FIXTURES, "exmp01_atif.json");

// Copies of piped input go to os.tmpdir(): the scratch folder, so a test sees what they leave.
const work = useScratchTmpdir("relaytrace-pipe-test-");

/** The CLI as a program, with `input` written to its standard input. */
function cliWithStdin(args: string[], input: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: work.dir,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, TMPDIR: work.scratch },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("a FILE that can be read only once (a pipe, standard input)", () => {
  it("validate and tree read an ATOF log from a named pipe: the format check does not eat its start", async () => {
    const io = capturedIo();
    expect(await main(["validate", namedPipeFrom(work.dir, "v.fifo", ATOF)], io)).toBe(0);
    expect(io.stdout.join("\n")).toMatch(/v\.fifo: valid ATOF \(\d+ events\)/);

    const plain = capturedIo();
    expect(await main(["tree", ATOF], plain)).toBe(0);
    const piped = capturedIo();
    expect(await main(["tree", namedPipeFrom(work.dir, "t.fifo", ATOF)], piped)).toBe(0);
    expect(piped.stdout).toEqual(plain.stdout);
    expect(piped.stdout.length).toBeGreaterThan(0);
  }, 15_000);

  it("an ATIF document through a pipe is still told apart from ATOF and checked", async () => {
    const io = capturedIo();
    expect(await main(["validate", namedPipeFrom(work.dir, "doc.fifo", ATIF)], io)).toBe(0);
    expect(io.stdout.join("\n")).toMatch(/doc\.fifo: valid ATIF \(ATIF-v1\.\d+, \d+ steps\)/);
  }, 15_000);

  it("view writes the same page from a pipe as from the file", async () => {
    const fromFile = join(work.dir, "file.html");
    const fromPipe = join(work.dir, "pipe.html");
    // The page names each source by its base name: the file and the pipe share one.
    const file = join(work.dir, "run.jsonl");
    await copyFile(ATOF, file);
    await mkdir(join(work.dir, "piped"));
    expect(await main(["view", file, "-o", fromFile, "--title", "t"], capturedIo())).toBe(0);
    expect(
      await main(["view", namedPipeFrom(join(work.dir, "piped"), "run.jsonl", ATOF), "-o", fromPipe, "--title", "t"], capturedIo()),
    ).toBe(0);
    expect(await readFile(fromPipe, "utf8")).toBe(await readFile(fromFile, "utf8"));
  }, 15_000);

  it("problems are reported under the name given, with their line numbers, and the copy is gone afterwards", async () => {
    const source = join(work.dir, "bad.jsonl");
    const lines = [...nestedScopes(2)];
    lines.splice(2, 0, "{not json");
    await writeLines(source, lines);
    const io = capturedIo();
    const fifo = namedPipeFrom(work.dir, "bad.fifo", source);
    expect(await main(["validate", fifo], io)).toBe(1);
    expect(io.stdout.join("\n")).toContain(`${fifo}:3:`);
    expect([...io.stdout, ...io.stderr].join("\n")).not.toContain(work.scratch);
    // The copy of the piped input is removed when the command ends.
    expect(await readdir(work.scratch)).toEqual([]);
  }, 15_000);

  it("'-' is standard input: convert it to ATIF, validate a document read from it, and leave no copy behind", async () => {
    const converted = await cliWithStdin(["convert", "-", "--to", "atif"], await readFile(ATOF));
    expect(converted.stderr).toBe("");
    expect(converted.code).toBe(0);
    expect(validateAtif(JSON.parse(converted.stdout)).valid).toBe(true);

    const validated = await cliWithStdin(["validate", "-"], Buffer.from(converted.stdout));
    expect(validated.code).toBe(0);
    expect(validated.stdout).toMatch(/^-: valid ATIF/);
    expect(await readdir(work.scratch)).toEqual([]);
  }, 30_000);

  it("a regular file is read where it is, not copied", async () => {
    const copy = join(work.dir, "regular.jsonl");
    await copyFile(ATOF, copy);
    const io = capturedIo();
    const pending = main(["validate", copy], io);
    expect(await pending).toBe(0);
    expect(await readdir(work.scratch)).toEqual([]);
  });
});
