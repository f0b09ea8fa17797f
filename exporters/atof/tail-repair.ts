import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync, constants } from "node:fs";

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** What `repairTail` did to a file whose last line had no line end. */
export interface TailRepair {
  /** `truncated`: an incomplete line was removed; `terminated`: a complete last event got its missing `\n`. */
  action: "truncated" | "terminated";
  bytes: number;
}

/** Offset just past the last `\n` in the file (0 when it has none), scanning back in fixed chunks. */
function endOfLastLine(fd: number, size: number): number {
  const chunk = Buffer.alloc(CHUNK);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const read = readSync(fd, chunk, 0, end - start, start);
    const at = chunk.subarray(0, read).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

function isJsonObjectText(bytes: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * A writer killed inside a write leaves part of a line at the end of the file. Before appending,
 * cut that part off (else the next line would be glued to it), unless it is a whole JSON object
 * another producer wrote without the final `\n`: that one is kept and terminated. Tails longer
 * than `maxLineBytes` are cut without being parsed. Returns undefined when the file ended cleanly.
 */
export function repairTail(path: string, maxLineBytes: number, followSymlinks: boolean): TailRepair | undefined {
  const flags = constants.O_RDWR | constants.O_NONBLOCK | (followSymlinks ? 0 : constants.O_NOFOLLOW);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENXIO" || code === "EISDIR") return undefined; // nothing to repair; open() reports the rest
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size === 0) return undefined;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, stat.size - 1);
    if (last[0] === NEWLINE) return undefined;
    const lineStart = endOfLastLine(fd, stat.size);
    const tailBytes = stat.size - lineStart;
    if (tailBytes <= maxLineBytes) {
      const tail = Buffer.alloc(tailBytes);
      readSync(fd, tail, 0, tailBytes, lineStart);
      if (isJsonObjectText(tail)) {
        writeSync(fd, "\n", stat.size);
        return { action: "terminated", bytes: 1 };
      }
    }
    ftruncateSync(fd, lineStart);
    return { action: "truncated", bytes: tailBytes };
  } finally {
    closeSync(fd);
  }
}
