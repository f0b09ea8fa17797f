import { createReadStream } from "node:fs";

/** One line of a file: `text` is null when the line was longer than the cap (its bytes were skipped, never held). */
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
 * line is reported with `text: null` and skipped to its end, so a 600 MB line without a newline
 * costs a bounded buffer, never a string past V8's limit. Works on bytes, so a UTF-8 sequence split
 * across read chunks is decoded whole.
 */
export async function* splitFileLines(path: string, maxLineBytes: number): AsyncGenerator<FileLine> {
  const input = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let pieces: Buffer[] = [];
  let held = 0;
  let lineBytes = 0;
  let overlong = false;
  let lineNo = 0;
  const finish = (terminated: boolean): FileLine => {
    lineNo++;
    const text = overlong ? null : Buffer.concat(pieces, held).toString("utf8");
    const line = { lineNo, text, bytes: lineBytes, terminated };
    pieces = [];
    held = 0;
    lineBytes = 0;
    overlong = false;
    return line;
  };
  const take = (part: Buffer): void => {
    lineBytes += part.length;
    if (overlong) return;
    if (lineBytes > maxLineBytes) {
      overlong = true;
      pieces = [];
      held = 0;
      return;
    }
    pieces.push(part);
    held += part.length;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, from); at >= 0; at = chunk.indexOf(NEWLINE, from)) {
        take(chunk.subarray(from, at));
        yield finish(true);
        from = at + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
    }
    if (lineBytes > 0 || overlong) yield finish(false);
  } finally {
    input.destroy();
  }
}
