import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** A path a built-in was asked to touch that lies outside its workdir. */
export class WorkdirEscapeError extends Error {
  constructor(readonly requested: string) {
    super(`path ${JSON.stringify(requested)} is outside the workdir`);
    this.name = "WorkdirEscapeError";
  }
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of `path`, or of its deepest existing ancestor joined with the rest (for a file not yet created). */
function realOrAncestor(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : resolve(real, ...missing.reverse());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && (err as NodeJS.ErrnoException).code !== "ENOTDIR") throw err;
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

/**
 * The directory the file built-ins are confined to. Every path is resolved against it and
 * refused when it leaves it: an absolute path elsewhere, `..` segments, or a symlink (at any
 * depth) whose target lies outside. The check runs before each access; a link swapped in
 * between the check and the access is not caught (the workdir is not a sandbox against a
 * concurrent attacker on the same machine).
 */
export class Workspace {
  readonly root: string;
  private readonly realRoot: string;

  constructor(root: string) {
    this.root = resolve(root);
    try {
      this.realRoot = realpathSync(this.root);
    } catch {
      throw new TypeError(`createToolkit: workdir ${JSON.stringify(root)} does not exist`);
    }
  }

  /** The absolute path for `requested` (relative to the workdir), or a WorkdirEscapeError. */
  resolve(requested: string): string {
    const lexical = resolve(this.root, requested);
    if (!inside(this.root, lexical)) throw new WorkdirEscapeError(requested);
    if (!inside(this.realRoot, realOrAncestor(lexical))) throw new WorkdirEscapeError(requested);
    return lexical;
  }

  /** True when a path found while walking (already under the root) really resolves inside it. */
  contains(path: string): boolean {
    try {
      return inside(this.realRoot, realOrAncestor(path));
    } catch {
      return false;
    }
  }

  /** `path` relative to the workdir, with `/` separators. */
  relative(path: string): string {
    return relative(this.root, path).split(sep).join("/");
  }
}
