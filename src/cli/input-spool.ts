import { createReadStream, createWriteStream, rmSync } from "node:fs";
import { stat } from "node:fs/promises";
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { atofFilesIn, concatenateLines } from "./input-directory.js";
import { SpillDirectory } from "./spill-directory.js";

/** The FILE argument that stands for standard input. */
export const STDIN_ARGUMENT = "-";

/** The environment variable that bounds the copy of an unrepeatable input, in bytes. */
export const PIPED_INPUT_LIMIT_VARIABLE = "RELAYTRACE_MAX_PIPED_INPUT_BYTES";
/** The bound when the variable is not set: 4 GiB. */
export const DEFAULT_PIPED_INPUT_LIMIT = 4 * 1024 * 1024 * 1024;

/** An input that is not copied: longer than the bound, or the bound itself is not a number of bytes. */
export class InputCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputCopyError";
  }
}

/** The copies of this command's unrepeatable inputs, by the name the command was given. */
const copies = new Map<string, Promise<string>>();
let directory: SpillDirectory | undefined;

/**
 * The path to open for an input a command was given. A regular file is read where it is. A
 * directory stands for its `*.jsonl` files in name order, read as one input (a rotated set: a
 * scope started in one file and ended in the next is one span); they are joined into one copy. Input that can be read only once — a
 * pipe, a terminal, a socket, or standard input as `-` — is first copied as it streams to a file
 * in a private scratch directory: commands read an input's head to tell its format, then read it
 * again from the start. Memory stays bounded; the copy takes as much disk as the input, up to
 * the bound (`RELAYTRACE_MAX_PIPED_INPUT_BYTES`, else 4 GiB: `/dev/zero` or a pipe that never
 * ends would fill the disk), and goes with `releaseInputCopies()` or when the process ends.
 * Rejects with an InputCopyError past the bound, else with the stat's or the read's error (a
 * missing file's ENOENT), which callers describe under the name they were given.
 */
export function readablePath(path: string): Promise<string> {
  let copy = copies.get(path);
  if (copy === undefined) {
    copy = path === STDIN_ARGUMENT ? copyToScratch(process.stdin, "", "standard input") : copyIfUnrepeatable(path);
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
  if (info.isDirectory()) return joinDirectory(path);
  if (!info.isFIFO() && !info.isCharacterDevice() && !info.isSocket()) return path;
  // The extension is kept: a `.json` name is one of the hints that tell ATIF from ATOF.
  return copyToScratch(createReadStream(path), extname(path), path);
}

/** The bound on a copy, from the environment. */
export function pipedInputLimit(): number {
  const text = process.env[PIPED_INPUT_LIMIT_VARIABLE];
  if (text === undefined || text === "") return DEFAULT_PIPED_INPUT_LIMIT;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit <= 0 || !/^\d+$/.test(text.trim()))
    throw new InputCopyError(`${PIPED_INPUT_LIMIT_VARIABLE} must be a whole number of bytes above 0 (got "${text}")`);
  return limit;
}

async function copyToScratch(source: Readable, extension: string, name: string): Promise<string> {
  let limit: number;
  try {
    limit = pipedInputLimit();
  } catch (error) {
    source.destroy();
    throw error;
  }
  directory ??= new SpillDirectory("relaytrace-input-");
  const file = directory.nextFile("input", extension);
  let copied = 0;
  async function* bounded(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      copied += chunk.length;
      if (copied > limit) {
        throw new InputCopyError(
          `${name} is longer than ${limit.toLocaleString("en-US")} bytes, the most a pipe or device is copied to a ` +
            `temporary file before it is read (${PIPED_INPUT_LIMIT_VARIABLE} sets it): save it to a file and pass the file`,
        );
      }
      yield chunk;
    }
  }
  try {
    await pipeline(source, bounded, createWriteStream(file, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    rmSync(file, { force: true }); // a partial copy is of no use: its disk is given back at once
    throw error;
  }
  return file;
}

/** A directory's `*.jsonl` files joined, in name order, into one scratch file (bounded like a pipe's copy). */
async function joinDirectory(path: string): Promise<string> {
  const files = await atofFilesIn(path);
  if (files.length === 0) throw new InputCopyError(`${path}: a directory with no *.jsonl files to read`);
  const limit = pipedInputLimit();
  directory ??= new SpillDirectory("relaytrace-input-");
  const file = directory.nextFile("input", ".jsonl");
  try {
    await concatenateLines(files, createWriteStream(file, { flags: "wx", mode: 0o600 }), (bytes) => {
      if (bytes > limit)
        throw new InputCopyError(
          `${path}: its *.jsonl files are longer than ${limit.toLocaleString("en-US")} bytes together, the most a directory is ` +
            `joined into one temporary file before it is read (${PIPED_INPUT_LIMIT_VARIABLE} sets it)`,
        );
    });
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
  return file;
}
