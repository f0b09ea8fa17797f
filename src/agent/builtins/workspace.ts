import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";

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

/** Links followed while resolving one path before it counts as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/** Path separators: on POSIX a backslash is an ordinary file-name character. */
const SEPARATORS = sep === "/" ? /\/+/ : /[\\/]+/;

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Where `path` (absolute) really leads, component by component as the kernel would walk it:
 * every symlink on the way is replaced by its target, a dangling one too (a write through it
 * creates its target), and `..` after a link applies to where the link led. Below the first
 * component that does not exist, the rest is taken as written.
 */
function resolveEveryLink(path: string): string {
  const root = parse(path).root;
  const pending = path.slice(root.length).split(SEPARATORS).reverse();
  let current = root;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (err) {
      if (errnoOf(err) !== "ENOENT" && errnoOf(err) !== "ENOTDIR") throw err;
      return resolve(next, ...pending.reverse());
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) throw new Error(`too many levels of symbolic links in ${path}`);
    const target = readlinkSync(next);
    if (isAbsolute(target)) current = parse(target).root;
    pending.push(
      ...target
        .slice(isAbsolute(target) ? parse(target).root.length : 0)
        .split(SEPARATORS)
        .reverse(),
    );
  }
  return current;
}

/**
 * The directory the file built-ins are confined to. Every path is resolved against it and
 * refused when it leaves it: an absolute path elsewhere, `..` segments, or a symlink (at any
 * depth, dangling or not) whose target lies outside. The check runs before each access; a link swapped in
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
    if (!inside(this.realRoot, resolveEveryLink(lexical))) throw new WorkdirEscapeError(requested);
    return lexical;
  }

  /** True when a path found while walking (already under the root) really resolves inside it. */
  contains(path: string): boolean {
    try {
      return inside(this.realRoot, resolveEveryLink(path));
    } catch {
      return false;
    }
  }

  /** `path` relative to the workdir, with `/` separators. */
  relative(path: string): string {
    return relative(this.root, path).split(sep).join("/");
  }
}
