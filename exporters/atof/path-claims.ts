import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Files an ATOF file sink of this process writes: one writer per file, or lines would interleave or be erased. */
const claimed = new Set<string>();

/** The path with its directory's symlinks resolved, so two spellings of one file are one claim. */
function canonical(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path; // the directory does not exist yet: nothing else can alias it
  }
}

/** Reserves `path` for one writer; throws when another sink of this process holds it. Returns the release. */
export function claimPath(path: string, owner: string): () => void {
  const key = canonical(path);
  if (claimed.has(key)) {
    throw new Error(
      `${owner}: ${path} is already written by another file sink in this process; one writer per file ` +
        "(shut the first exporter down first, or give each exporter its own path)",
    );
  }
  claimed.add(key);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    claimed.delete(key);
  };
}
