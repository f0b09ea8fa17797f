import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { parseAtofLine } from "./atof-codec.js";
import type { AtofWarning } from "./atof-errors.js";
import { AtofPairingChecker } from "./atof-pairing.js";
import type { AtofEvent } from "./types.js";

export interface ParseAtofOptions {
  /** Check start/end pairing across the stream (default true). */
  checkPairing?: boolean;
}

export interface StreamAtofOptions extends ParseAtofOptions {
  /** Called with the number of lines read so far, every `progressEvery` lines and once at the end. */
  onProgress?: (linesRead: number) => void;
  /** Default 1000. */
  progressEvery?: number;
  /** Receives each warning as soon as it is found. */
  onWarning?: (warning: AtofWarning) => void;
}

export interface AtofReadResult {
  events: AtofEvent[];
  warnings: AtofWarning[];
}

/** Reads lines into events; shared by the text and the streaming readers so both behave the same. */
class LineReader {
  private readonly pairing: AtofPairingChecker | null;
  lineNo = 0;

  constructor(options: ParseAtofOptions, private readonly warnings: AtofWarning[]) {
    this.pairing = options.checkPairing === false ? null : new AtofPairingChecker();
  }

  /** Returns the event of the line, or null for a blank line. Throws AtofParseError. */
  next(line: string): AtofEvent | null {
    this.lineNo += 1;
    let text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (this.lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === "") return null;
    const event = parseAtofLine(text, this.lineNo, this.warnings);
    this.pairing?.check(event, this.lineNo, this.warnings);
    return event;
  }
}

/** Parses a whole ATOF JSONL text (blank lines skipped). Throws AtofParseError on the first bad line. */
export function parseAtof(text: string, options: ParseAtofOptions = {}): AtofReadResult {
  const warnings: AtofWarning[] = [];
  const reader = new LineReader(options, warnings);
  const events: AtofEvent[] = [];
  for (const line of text.split("\n")) {
    const event = reader.next(line);
    if (event !== null) events.push(event);
  }
  return { events, warnings };
}

/** Reads and parses a whole ATOF JSONL file into memory. */
export async function readAtofFile(path: string, options: ParseAtofOptions = {}): Promise<AtofReadResult> {
  return parseAtof(await readFile(path, "utf8"), options);
}

/**
 * Streams the events of an ATOF JSONL file line by line, for files too big to hold as text.
 * Throws AtofParseError (from the iteration) on the first bad line.
 */
export async function* streamAtofFile(path: string, options: StreamAtofOptions = {}): AsyncGenerator<AtofEvent, AtofWarning[]> {
  const warnings: AtofWarning[] = [];
  const reader = new LineReader(options, warnings);
  const every = Math.max(1, options.progressEvery ?? 1000);
  let reported = 0;
  const input = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const before = warnings.length;
      const event = reader.next(line);
      if (options.onWarning) for (let i = before; i < warnings.length; i++) options.onWarning(warnings[i]!);
      if (options.onProgress && reader.lineNo % every === 0) {
        reported = reader.lineNo;
        options.onProgress(reported);
      }
      if (event !== null) yield event;
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (options.onProgress && reported !== reader.lineNo) options.onProgress(reader.lineNo);
  return warnings;
}
