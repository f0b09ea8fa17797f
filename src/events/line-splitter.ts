import { nodeFs } from "./node-fs.js";

/**
 * One line of a file. `text` is null when the line is longer than the cap: that line is reported
 * as soon as it passes the cap (`bytes` = what was read of it so far) and the rest of it is skipped.
 */
export interface FileLine {
  lineNo: number;
  text: string | null;
  /** UTF-8 bytes of the line, without its `\n`. */
  bytes: number;
  /** False only for a last line the file does not end with `\n` (a writer may have stopped mid-line). */
  terminated: boolean;
}

const NEWLINE = 0x0a;

/**
 * Splits a file into lines on `\n`, holding at most `maxLineBytes` of one line in memory: a longer
 * line is reported with `text: null` once it passes the cap, so a 600 MB line without a newline
 * costs a bounded buffer and no wait for its end, never a string past V8's limit. Works on bytes, so a UTF-8 sequence split
 * across read chunks is decoded whole. `readChunkBytes` sizes each read (many files open at once
 * want small reads).
 */
export async function* splitFileLines(path: string, maxLineBytes: number, readChunkBytes = 1024 * 1024): AsyncGenerator<FileLine> {
  const input = nodeFs().createReadStream(path, { highWaterMark: readChunkBytes });
  let pieces: Buffer[] = [];
  let held = 0;
  let lineBytes = 0;
  let overlong = false;
  let lineNo = 0;
  /** Ends the current line: its FileLine, or undefined for the end of an overlong line (already reported). */
  const finish = (terminated: boolean): FileLine | undefined => {
    lineNo++;
    const line = overlong ? undefined : { lineNo, text: Buffer.concat(pieces, held).toString("utf8"), bytes: lineBytes, terminated };
    pieces = [];
    held = 0;
    lineBytes = 0;
    overlong = false;
    return line;
  };
  /** Adds part of the current line; returns the overlong report the first time the line passes the cap. */
  const take = (part: Buffer): FileLine | undefined => {
    lineBytes += part.length;
    if (overlong) return undefined;
    if (lineBytes > maxLineBytes) {
      overlong = true;
      pieces = [];
      held = 0;
      return { lineNo: lineNo + 1, text: null, bytes: lineBytes, terminated: false };
    }
    pieces.push(part);
    held += part.length;
    return undefined;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, from); at >= 0; at = chunk.indexOf(NEWLINE, from)) {
        const tooLong = take(chunk.subarray(from, at));
        if (tooLong) yield tooLong;
        const line = finish(true);
        if (line) yield line;
        from = at + 1;
      }
      if (from < chunk.length) {
        const tooLong = take(chunk.subarray(from));
        if (tooLong) yield tooLong;
      }
    }
    if (lineBytes > 0 && !overlong) yield finish(false)!;
  } finally {
    input.destroy();
  }
}
