import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * `mkdir -p` that always returns: Node's own `{ recursive: true }` loops forever where a parent
 * exists but refuses children with ENOENT (`/proc/x`). Here each missing component is created
 * once, top down; any refusal throws the system error with the path it concerns.
 */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      if (!statSync(current).isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: "ENOTDIR", path: current });
      }
      break;
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error;
    }
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!);
    } catch (error) {
      if (codeOf(error) === "EEXIST" && statSync(missing[i]!).isDirectory()) continue; // made by someone else meanwhile
      throw error;
    }
  }
}
