import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** This package's version, from its package.json (found upward: the sources and the build sit at different depths). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "relaytrace" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not here: look one level up
    }
    dir = dirname(dir);
  }
  return "unknown";
}
