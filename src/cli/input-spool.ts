import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { SpillDirectory } from "./spill-directory.js";

/** The FILE argument that stands for standard input. */
export const STDIN_ARGUMENT = "-";

/** The copies of this command's unrepeatable inputs, by the name the command was given. */
const copies = new Map<string, Promise<string>>();
let directory: SpillDirectory | undefined;

/**
 * The path to open for an input a command was given. A regular file (or a directory, which
 * fails later with its own message) is read where it is. Input that can be read only once — a
 * pipe, a terminal, a socket, or standard input as `-` — is first copied as it streams to a file
 * in a private scratch directory: commands read an input's head to tell its format, then read it
 * again from the start. Memory stays bounded; the copy takes as much disk as the input, and goes
 * with `releaseInputCopies()` or when the process ends. Rejects with the stat's or the read's
 * error (a missing file's ENOENT), which callers describe under the name they were given.
 */
export function readablePath(path: string): Promise<string> {
  let copy = copies.get(path);
  if (copy === undefined) {
    copy = path === STDIN_ARGUMENT ? copyToScratch(process.stdin, "") : copyIfUnrepeatable(path);
    copies.set(path, copy);
    // A failed look or copy is not kept: the error reaches this caller, and a later one tries again.
    copy.catch(() => copies.delete(path));
  }
  return copy;
}

/**
 * The copy `readablePath` made of `path`, else `path` itself: for a reader that reads its input
 * once from the start anyway (the time-ordered ATOF reader), and so needs no copy of its own.
 */
export function copiedPath(path: string): Promise<string> {
  return copies.get(path) ?? Promise.resolve(path);
}

/** Removes the copies (the CLI does at the end of each command). */
export function releaseInputCopies(): void {
  copies.clear();
  directory?.remove();
  directory = undefined;
}

async function copyIfUnrepeatable(path: string): Promise<string> {
  const info = await stat(path);
  if (!info.isFIFO() && !info.isCharacterDevice() && !info.isSocket()) return path;
  // The extension is kept: a `.json` name is one of the hints that tell ATIF from ATOF.
  return copyToScratch(createReadStream(path), extname(path));
}

async function copyToScratch(source: Readable, extension: string): Promise<string> {
  directory ??= new SpillDirectory("relaytrace-input-");
  const file = directory.nextFile("input", extension);
  await pipeline(source, createWriteStream(file, { flags: "wx", mode: 0o600 }));
  return file;
}
