import { open } from "node:fs/promises";
import { parseAtofLine } from "../../../events/atof-parse.js";
import type { AtofEvent } from "../../../events/types.js";
import type { TailedFile } from "./directory-tail.js";
import type { RunRecord } from "./run-record.js";

/** Bytes read at once when lines lie next to each other in a file. */
const MAX_READ = 4 * 1024 * 1024;

/** One run's events read back from the files, in reading order, each with its file's name. */
export interface RunEvents {
  events: { event: AtofEvent; source: string }[];
  /** Lines that could not be read back: their file is gone or changed under them. */
  missing: number;
}

/** Consecutive lines of one file, read with one call. */
interface Range {
  file: number;
  start: number;
  end: number;
  lines: [number, number][];
}

function rangesOf(refs: readonly number[]): Range[] {
  const ranges: Range[] = [];
  let current: Range | undefined;
  for (let i = 0; i < refs.length; i += 3) {
    const file = refs[i]!;
    const offset = refs[i + 1]!;
    const length = refs[i + 2]!;
    const end = offset + length;
    if (current && current.file === file && offset >= current.end && offset <= current.end + 1 && end - current.start <= MAX_READ) {
      current.end = end;
      current.lines.push([offset, length]);
    } else {
      current = { file, start: offset, end, lines: [[offset, length]] };
      ranges.push(current);
    }
  }
  return ranges;
}

/**
 * A run's lines, read again from where the index saw them (neighbouring lines in one read) and
 * parsed. A line that no longer parses, or a file that is gone, is counted as missing.
 */
export async function readRunEvents(record: RunRecord, files: readonly TailedFile[]): Promise<RunEvents> {
  const out: RunEvents = { events: [], missing: 0 };
  const ranges = rangesOf(record.refs);
  let f = -1;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    for (const range of ranges) {
      if (range.file !== f) {
        await handle?.close();
        handle = undefined;
        f = range.file;
        const file = files[f];
        handle = file && !file.deleted ? await open(file.path, "r").catch(() => undefined) : undefined;
      }
      if (handle === undefined) {
        out.missing += range.lines.length;
        continue;
      }
      const buffer = Buffer.alloc(range.end - range.start);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, range.start);
      for (const [offset, length] of range.lines) {
        const from = offset - range.start;
        if (from + length > bytesRead) {
          out.missing++;
          continue;
        }
        let text = buffer.toString("utf8", from, from + length);
        if (text.endsWith("\r")) text = text.slice(0, -1);
        if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        try {
          out.events.push({ event: parseAtofLine(text), source: files[f]!.name });
        } catch {
          out.missing++;
        }
      }
    }
  } finally {
    await handle?.close();
  }
  return out;
}
