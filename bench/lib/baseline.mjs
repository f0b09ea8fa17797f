// The default "before" of bench/ab.mjs: the last release, whose commit bench/baseline-release.txt
// records (the repository has no release tags). The release is checked out as a detached git
// worktree in the system temp directory and built there once; later runs reuse that build.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The release commit recorded in bench/baseline-release.txt (its first word). */
export function releaseCommit() {
  const text = readFileSync(path.join(repoRoot, "bench", "baseline-release.txt"), "utf8");
  const commit = text.trim().split(/\s+/)[0];
  if (!/^[0-9a-f]{7,40}$/.test(commit ?? "")) throw new Error(`bench/baseline-release.txt: expected a commit, got ${JSON.stringify(text)}`);
  return commit;
}

/** A built tree of the release commit (checked out and built on first use); returns its root. */
export function releaseTree(commit = releaseCommit()) {
  const root = path.join(os.tmpdir(), `relaytrace-release-${commit}`);
  if (existsSync(path.join(root, "dist", "src", "index.js"))) return root;
  const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  console.log(`building the release baseline ${commit} in ${root} (once)`);
  if (!existsSync(root)) run("git", ["worktree", "add", "--detach", root, commit], repoRoot);
  run("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], root);
  run("npm", ["run", "build", "--silent"], root);
  return root;
}
