// Runs the repository's TypeScript compiler over some files, the way an app would compile them:
// the repo's tsconfig, no output, and `paths` mapping the package names (or other modules) to
// sources or declarations. Used by the tests that hold what the public types accept.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * tsc's output for `files` (paths relative to the repository root), with `paths` as in a tsconfig
 * (targets relative to the root, or absolute). An empty string means everything type-checked.
 * `extraFiles` are written next to the generated tsconfig first (name → text), e.g. a docs block.
 */
export async function typeCheck(
  files: readonly string[],
  paths: Record<string, string[]>,
  extraFiles: Record<string, string> = {},
): Promise<string> {
  const dir = await mkdtemp(join(ROOT, ".typecheck-"));
  try {
    for (const [name, text] of Object.entries(extraFiles)) await writeFile(join(dir, name), text);
    const fromDir = (file: string) => relative(dir, join(ROOT, file));
    const config = {
      extends: "../tsconfig.json",
      compilerOptions: { noEmit: true, rootDir: "..", baseUrl: "..", paths },
      files: [...files.map(fromDir), ...Object.keys(extraFiles).map((name) => `./${name}`)],
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify(config));
    return await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")],
        { cwd: ROOT, timeout: 110_000 },
        (_error, stdout, stderr) => resolve(stdout + stderr),
      );
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
