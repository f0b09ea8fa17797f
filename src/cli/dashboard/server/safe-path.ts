import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";

/**
 * Files the dashboard may read: regular files directly in its directory, by a plain name. A name
 * with a separator, `..`, a NUL or an absolute path is refused before the file system is asked;
 * a symbolic link is followed only when it ends inside the directory.
 */

/** Why a name was refused, for the 404 the server answers with (never the path it would have read). */
export class RefusedPath extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "RefusedPath";
  }
}

/** A plain file name: no directory part, no parent reference, nothing the OS reads specially. */
export function checkFileName(name: string): void {
  if (name === "" || name === "." || name === "..") throw new RefusedPath("not a file name");
  if (name.includes("/") || name.includes("\\") || name.includes("\0")) throw new RefusedPath("a path, not a file name");
  if (isAbsolute(name) || /^[A-Za-z]:/.test(name)) throw new RefusedPath("an absolute path");
}

/** Whether `path` (already resolved) is `dir` itself or inside it. */
function inside(dir: string, path: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * The real path of file `name` in `realDir` (the directory's own real path), or a RefusedPath:
 * not a plain name, not there, not a regular file, or a link that leads out of the directory.
 */
export async function fileInDirectory(realDir: string, name: string): Promise<string> {
  checkFileName(name);
  const path = join(realDir, name);
  let info;
  try {
    info = await lstat(path);
  } catch {
    throw new RefusedPath("no such file");
  }
  let real = path;
  if (info.isSymbolicLink()) {
    try {
      real = await realpath(path);
    } catch {
      throw new RefusedPath("a dangling link");
    }
    if (!inside(realDir, real)) throw new RefusedPath("a link that leads out of the directory");
    info = await stat(real);
  }
  if (!info.isFile()) throw new RefusedPath("not a regular file");
  return real;
}

/** An ATOF file of the directory: its name and the real path it is read from. */
export interface DirectoryEntry {
  name: string;
  path: string;
}

/**
 * The directory's `*.jsonl` files in name order, each checked as `fileInDirectory` checks; the
 * refused ones named with their reason. Two names of one file (a link to a file beside it) are
 * read once, by the name that is not a link.
 */
export async function atofFilesIn(realDir: string): Promise<{ files: DirectoryEntry[]; refused: string[] }> {
  const names = (await readdir(realDir)).filter((n) => n.endsWith(".jsonl")).sort();
  const found: (DirectoryEntry & { link: boolean })[] = [];
  const refused: string[] = [];
  for (const name of names) {
    try {
      const path = await fileInDirectory(realDir, name);
      found.push({ name, path, link: path !== join(realDir, name) });
    } catch (error) {
      if (!(error instanceof RefusedPath)) throw error;
      // A file removed between the listing and the check is simply not there.
      if (error.message !== "no such file") refused.push(`${name}: ${error.message}`);
    }
  }
  const byPath = new Map<string, DirectoryEntry & { link: boolean }>();
  for (const entry of found) {
    const other = byPath.get(entry.path);
    if (other === undefined || (other.link && !entry.link)) byPath.set(entry.path, entry);
  }
  const files: DirectoryEntry[] = [];
  for (const entry of found) {
    const kept = byPath.get(entry.path)!;
    if (kept === entry) files.push({ name: entry.name, path: entry.path });
    else refused.push(`${entry.name}: the same file as ${kept.name}`);
  }
  return { files, refused };
}
