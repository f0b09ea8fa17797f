import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { AtifExporter } from "../../exporters/atif/exporter.js";
import { AtofExporter } from "../../exporters/atof/atof-exporter.js";
import { captureIo } from "../support/cli-io.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-output-paths-"));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

const BASE = 1_772_366_400_000_000;
/** One agent run whose root scope (and so its trajectory id) is `id`. */
function run(id: string, us: number): string[] {
  return [
    scopeLine("start", id, null, us, { name: "agent", category: "agent", data: { input: `question ${id}` } }),
    scopeLine("start", `${id}-step`, id, us + 1, { name: "step" }),
    scopeLine("end", `${id}-step`, id, us + 2, { name: "step" }),
    scopeLine("end", id, null, us + 3, { name: "agent", category: "agent", data: { output: `answer ${id}` } }),
  ];
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

describe("convert --to atif -o DIR: file names read from the input stay in DIR", () => {
  it("ids with separators, `..`, 1,000 characters or colliding spellings become distinct safe names inside DIR", async () => {
    const input = join(work, "hostile.jsonl");
    const long = "x".repeat(1000);
    const ids = ["/../../../package", "../escape", "a/b", "a_b", `${long}1`, `${long}2`];
    await writeLines(
      input,
      ids.flatMap((id, i) => run(id, BASE + i * 10)),
    );
    const out = join(work, "deep", "out");
    await mkdir(out, { recursive: true });
    const io = captureIo();
    expect(await main(["convert", input, "--to", "atif", "-o", out], io)).toBe(0);
    const files = (await readdir(out)).sort();
    expect(files).toHaveLength(ids.length);
    for (const name of files) {
      expect(name).toMatch(/^relaytrace-atif-[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/);
      expect(name).not.toContain("..");
      expect(name.length).toBeLessThan(200);
    }
    expect(await exists(join(work, "package"))).toBe(false);
    expect(await exists(join(work, "deep", "package"))).toBe(false);
    expect(await readdir(work)).toEqual(["deep", "hostile.jsonl"]);
    const inputs = await Promise.all(files.map(async (f) => JSON.parse(await readFile(join(out, f), "utf8")).trajectory_id as string));
    expect(inputs.sort()).toEqual([...ids].sort());
  });

  it("a symlink planted at the output name is not followed: its target is untouched and the run gets a numbered name", async () => {
    const input = join(work, "one.jsonl");
    await writeLines(input, run("r1", BASE));
    const out = join(work, "out");
    await mkdir(out);
    const victim = join(work, "victim.txt");
    await symlink(victim, join(out, "relaytrace-atif-r1.json")); // dangling: following it would create the victim
    const io = captureIo();
    expect(await main(["convert", input, "--to", "atif", "-o", `${out}/`], io)).toBe(0);
    expect(await exists(victim)).toBe(false);
    expect((await lstat(join(out, "relaytrace-atif-r1.json"))).isSymbolicLink()).toBe(true);
    const written = JSON.parse(await readFile(join(out, "relaytrace-atif-r1-2.json"), "utf8")) as { trajectory_id: string };
    expect(written.trajectory_id).toBe("r1");
  });
});

describe("AtifExporter: file names from trajectory ids", () => {
  it("ids with separators, `..` or 1,000 characters, or that read alike once cleaned, get distinct bounded names inside the directory", async () => {
    const dir = join(work, "traces");
    const exporter = new AtifExporter({ agent: { name: "a", version: "1" }, outputDirectory: dir });
    const ids = ["../../escaped", "a/b", "a_b", "y".repeat(1000)];
    for (const [i, id] of ids.entries()) for (const line of run(id, BASE + i * 10)) exporter.onEvent(JSON.parse(line));
    await exporter.shutdown();
    expect(exporter.diagnostics()).toEqual([]);
    const files = await readdir(dir);
    expect(files).toHaveLength(ids.length);
    for (const name of files) expect(name.length).toBeLessThan(200);
    expect(await readdir(work)).toEqual(["traces"]);
  });
});

describe("exporters refuse a symlink planted in place of their outputDirectory", () => {
  it("AtifExporter and AtofExporter throw at construction, naming the link; followSymlinks: true accepts it", async () => {
    const elsewhere = join(work, "elsewhere");
    await mkdir(elsewhere);
    const link = join(work, "traces");
    await symlink(elsewhere, link);
    const agent = { name: "a", version: "1" };
    expect(() => new AtifExporter({ agent, outputDirectory: link })).toThrow(/outputDirectory .*traces is a symbolic link/);
    expect(() => new AtofExporter({ type: "file", outputDirectory: link })).toThrow(/outputDirectory .*traces is a symbolic link/);
    expect(() => new AtifExporter({ agent, outputDirectory: link, followSymlinks: true })).not.toThrow();
    const atof = new AtofExporter({ type: "file", outputDirectory: link, path: "x.jsonl", followSymlinks: true });
    await atof.shutdown();
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it("AtifExporter does not write through a link swapped in after construction: the write fails as a diagnostic", async () => {
    const dir = join(work, "traces");
    await mkdir(dir);
    const exporter = new AtifExporter({ agent: { name: "a", version: "1" }, outputDirectory: dir });
    const elsewhere = join(work, "elsewhere");
    await mkdir(elsewhere);
    await rm(dir, { recursive: true });
    await symlink(elsewhere, dir);
    for (const line of run("r1", BASE)) exporter.onEvent(JSON.parse(line));
    await exporter.shutdown();
    expect(await readdir(elsewhere)).toEqual([]);
    expect(exporter.diagnostics().map((d) => d.code)).toContain("atif.write_failed");
  });
});
