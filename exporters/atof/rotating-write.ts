import { join } from "node:path";
import { claimPath } from "./path-claims.js";
import type { RotatedFileSet } from "./rotation.js";
import { claimWriter } from "./writer-claim.js";

const NEWLINE = 0x0a;
/** Names tried for the set's next file before giving up. */
const NAME_ATTEMPTS = 100;

/** What writing one batch across a set of files needs of the sink that writes it. */
export interface RotatingTarget {
  /** Bytes in the file written now. */
  size(): number;
  /** Closes the file written now and opens the set's next one; throws when it cannot. */
  next(): void;
  /** Appends `chunk`, `lines` whole lines, to the file written now. */
  write(chunk: Buffer, lines: number): void;
  /** Counts `lines` that could not be written, and why. */
  lost(error: unknown, lines: number): void;
}

/**
 * Writes a batch of whole lines across as many files as `maxBytes` asks for: a line never
 * straddles two files, and one longer than `maxBytes` is written alone into a file of its own.
 * When the next file cannot be opened, the lines not written yet are counted as lost.
 */
export function writeAcrossFiles(bytes: Buffer, maxBytes: number, target: RotatingTarget): void {
  let from = 0;
  while (from < bytes.length) {
    const size = target.size();
    let end = fittingEnd(bytes, from, maxBytes - size);
    if (end === from) {
      if (size > 0) {
        try {
          target.next();
        } catch (err) {
          target.lost(err, countLines(bytes, from, bytes.length));
          return;
        }
        continue;
      }
      end = bytes.indexOf(NEWLINE, from) + 1; // longer than maxBytes: alone in a fresh file
    }
    const chunk = bytes.subarray(from, end);
    target.write(chunk, countLines(chunk, 0, chunk.length));
    from = end;
  }
}

/**
 * The set's newest file before `current`, when no live writer holds it, gets the repair an
 * appending sink gives its file (a killed writer's torn last line, see `repair`), so that every
 * closed file of the set ends in a whole line. A repair that fails is reported to `failed`.
 */
export function repairNewestClosed(
  rotation: RotatedFileSet,
  current: string,
  repair: (path: string) => void,
  failed: (path: string, error: unknown) => void,
): void {
  const before = rotation.files().filter((name) => join(rotation.directory, name) < current);
  const newest = before.at(-1);
  if (newest === undefined) return;
  const path = join(rotation.directory, newest);
  const outcome = claimWriter(path);
  if (outcome.status === "held") return;
  try {
    repair(path);
  } catch (err) {
    failed(path, err);
  } finally {
    if (outcome.status === "claimed") outcome.claim.release();
  }
}

/**
 * End (exclusive) of the whole lines from `from` that fit in `room` bytes; `from` when not even
 * the first one does.
 */
function fittingEnd(bytes: Buffer, from: number, room: number): number {
  if (room >= bytes.length - from) return bytes.length;
  if (room <= 0) return from;
  const last = bytes.lastIndexOf(NEWLINE, from + room - 1);
  return last >= from ? last + 1 : from;
}

function countLines(bytes: Buffer, from: number, to: number): number {
  let lines = 0;
  for (let at = bytes.indexOf(NEWLINE, from); at >= 0 && at < to; at = bytes.indexOf(NEWLINE, at + 1)) lines++;
  return lines;
}

/**
 * Names and claims the set's next file: a name another sink of this process holds, or one `claim`
 * refuses (a live process holds it: both started a file the same millisecond), is passed over for
 * the next one. Returns the release of this process's claim; throws when no name could be had.
 */
export function claimNextFile(rotation: RotatedFileSet, owner: string, claim: (path: string) => void): () => void {
  let lastError: unknown;
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const path = rotation.nextPath();
    let release: () => void;
    try {
      release = claimPath(path, owner);
    } catch (error) {
      lastError = error;
      continue;
    }
    try {
      claim(path);
    } catch (error) {
      release();
      lastError = error;
      continue;
    }
    return release;
  }
  const why = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`${owner}: no free name for the next file in ${rotation.directory} (${why})`, { cause: lastError });
}
