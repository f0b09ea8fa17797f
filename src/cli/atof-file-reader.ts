import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { AtofParseError } from "../events/atof-errors.js";
import { parseAtofLine } from "../events/atof-codec.js";
import type { AtofEvent } from "../events/types.js";
import { InputError } from "./input.js";

export interface AtofFileReadOptions {
  /** Skip a last line that does not parse and has no newline (a writer killed mid-line), with a warning. */
  lenient?: boolean;
  /** Bytes read so far and the file's size, after each chunk. */
  onBytes?: (done: number, total: number) => void;
  /** Warnings (a skipped torn line). */
  onWarning?: (message: string) => void;
}

function fsError(path: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new InputError(`${path}: no such file`);
  if (code === "EISDIR") return new InputError(`${path}: is a directory, not a file`);
  if (code === "EACCES") return new InputError(`${path}: permission denied`);
  return new InputError(`${path}: cannot read (${(error as Error).message})`);
}

/**
 * Streams an ATOF file's events to `onEvent`, awaiting it, so a slow consumer (a collector)
 * holds back the reading: memory stays bounded by one chunk plus what the consumer keeps.
 * Any bad line is an error naming it, except, with `lenient`, a torn last line.
 */
export async function forEachAtofEvent(path: string, onEvent: (event: AtofEvent) => void | Promise<void>, options: AtofFileReadOptions = {}): Promise<{ events: number; bytes: number }> {
  let total: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    total = info.size;
  } catch (error) {
    throw fsError(path, error);
  }
  const decoder = new StringDecoder("utf8");
  let carry = "";
  let lineNo = 0;
  let bytes = 0;
  let events = 0;
  const handle = async (line: string): Promise<void> => {
    lineNo++;
    let text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === "") return;
    const event = parseAtofLine(text, lineNo);
    events++;
    await onEvent(event);
  };
  const stream = createReadStream(path);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      const text = carry + decoder.write(chunk);
      const parts = text.split("\n");
      carry = parts.pop()!;
      for (const line of parts) await handle(line);
      options.onBytes?.(bytes, total);
    }
    carry += decoder.end();
  } catch (error) {
    if (error instanceof AtofParseError) throw new InputError(`${path}: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code) throw fsError(path, error);
    throw error;
  } finally {
    stream.destroy();
  }
  if (carry.trim() !== "") {
    // The last line has no newline: complete if it parses, torn if it does not.
    try {
      await handle(carry);
    } catch (error) {
      if (!(error instanceof AtofParseError)) throw error;
      if (!options.lenient) throw new InputError(`${path}: ${error.message}; the last line has no newline, as when a writer stops mid-line (--lenient skips it)`);
      options.onWarning?.(`${path}: skipped a torn last line (line ${error.lineNo}, ${Buffer.byteLength(carry)} bytes)`);
    }
  }
  return { events, bytes };
}
