import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALL_BUILTINS } from "../../src/agent/builtins/index.js";
import { createToolkit, type Toolkit } from "../../src/agent/index.js";

let base: string;
let work: string;
let outside: string;
let tk: Toolkit;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "relaytrace-workdir-links-"));
  work = join(base, "work");
  outside = join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
  tk = await createToolkit({ builtins: [...ALL_BUILTINS], workdir: work });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

const patchAdding = (path: string) => ["*** Begin Patch", `*** Add File: ${path}`, "+pwned", "*** End Patch"].join("\n");

describe("file built-ins: a link inside the workdir that leads out of it is never written through", () => {
  it("write through a dangling link to a file outside is refused and creates nothing there", async () => {
    await symlink(join(outside, "planted.txt"), join(work, "dangling.txt"));
    const result = await tk.execute("write", { path: "dangling.txt", content: "pwned" });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/outside the workdir/);
    expect(await exists(join(outside, "planted.txt"))).toBe(false);
  });

  it("write below a dangling link to a directory outside is refused: no directory or file appears there", async () => {
    await symlink(join(outside, "made", "here"), join(work, "dir-link"));
    const result = await tk.execute("write", { path: "dir-link/deeper/f.txt", content: "pwned" });
    expect(result.isError).toBe(true);
    expect(await exists(join(outside, "made"))).toBe(false);
  });

  it("a chain of links (relative, via `..`) that ends outside is refused; one that ends inside is followed", async () => {
    await mkdir(join(work, "sub"));
    await symlink("../../outside/chained.txt", join(work, "sub", "hop2"));
    await symlink("sub/hop2", join(work, "hop1"));
    expect((await tk.execute("write", { path: "hop1", content: "pwned" })).isError).toBe(true);
    expect(await exists(join(outside, "chained.txt"))).toBe(false);
    await symlink("sub/inside-target.txt", join(work, "good-link"));
    expect(await tk.execute("write", { path: "good-link", content: "fine" })).toEqual({
      output: "Wrote 4 bytes to good-link",
      isError: false,
    });
    expect(await readFile(join(work, "sub", "inside-target.txt"), "utf8")).toBe("fine");
  });

  it("apply_patch adding a file at a dangling link out of the workdir is refused and writes nothing", async () => {
    await symlink(join(outside, "via-patch.txt"), join(work, "added.txt"));
    await writeFile(join(work, "kept.txt"), "kept\n");
    const result = await tk.execute("apply_patch", { patchText: patchAdding("added.txt") });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/outside the workdir/);
    expect(await exists(join(outside, "via-patch.txt"))).toBe(false);
  });

  it("a link loop is an error result, not a hang or a crash", async () => {
    await symlink("loop-b", join(work, "loop-a"));
    await symlink("loop-a", join(work, "loop-b"));
    const result = await tk.execute("write", { path: "loop-a", content: "x" });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/symbolic links/);
  });
});
