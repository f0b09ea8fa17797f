import { readTextFileSync } from "./read-file-sync.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * This package's version, from its package.json (found upward: the sources and the build sit at
 * different depths), read once when first asked. "unknown" where there is no file system to read
 * it from (a bundle on Workers): the version is a label, never a reason to fail.
 */
export function packageVersion(): string {
  return (cached ??= readPackageVersion());
}

function readPackageVersion(): string {
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.url));
  } catch {
    return "unknown";
  }
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readTextFileSync(join(dir, "package.json"))) as { name?: string; version?: string };
      if (pkg.name === "relaytrace" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not here: look one level up
    }
    dir = dirname(dir);
  }
  return "unknown";
}
