import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export interface ScratchTmpdir {
  /** A work directory for the test file's own files. */
  dir: string;
  /** What `os.tmpdir()` returns while the file's tests run: the CLI's scratch files land here. */
  scratch: string;
}

/**
 * Registers hooks that give the test file a fresh work directory and point TMPDIR (which
 * `os.tmpdir()` reads) at an empty folder inside it, so tests can see what the code leaves in
 * the temporary directory; restored and removed after the file.
 */
export function useScratchTmpdir(prefix: string): ScratchTmpdir {
  const paths: ScratchTmpdir = { dir: "", scratch: "" };
  const saved = process.env["TMPDIR"];
  beforeAll(async () => {
    paths.dir = await mkdtemp(join(tmpdir(), prefix));
    paths.scratch = join(paths.dir, "scratch");
    await mkdir(paths.scratch);
    process.env["TMPDIR"] = paths.scratch;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = saved;
    await rm(paths.dir, { recursive: true, force: true });
  });
  return paths;
}
