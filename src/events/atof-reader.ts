import { parseAtofLine } from "./atof-parse.js";
import { AtofParseError, type AtofWarning } from "./atof-errors.js";
import { AtofPairingChecker } from "./atof-pairing.js";
import { splitFileLines } from "./line-splitter.js";
import { check, declareOptions, is } from "./option-spec.js";
import type { AtofEvent } from "./types.js";

/** Longest line the readers accept unless told otherwise: 64 MiB (UTF-8 bytes in files, characters in text). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface ParseAtofOptions {
  /** Check start/end pairing across the stream (default true). */
  checkPairing?: boolean;
  /** A longer line is an `AtofParseError` naming it, read in bounded memory; default `DEFAULT_MAX_LINE_BYTES` (64 MiB). */
  maxLineBytes?: number;
}

export interface StreamAtofOptions extends ParseAtofOptions {
  /** Called with the lines and bytes read so far, every `progressEvery` lines and once at the end. */
  onProgress?: (linesRead: number, bytesRead: number) => void;
  /** Default 1000. */
  progressEvery?: number;
  /** Receives each warning as soon as it is found. */
  onWarning?: (warning: AtofWarning) => void;
  /**
   * Skip a line that cannot be read (not JSON, not an ATOF event, a pairing conflict) with a
   * `skipped_line` warning instead of throwing (the CLI's `--lenient`). Overlong lines still throw.
   */
  skipBadLines?: boolean;
}

const PARSE_SPEC = {
  checkPairing: is.boolean,
  maxLineBytes: check("a positive number", (v) => typeof v === "number" && v > 0),
} as const;
const PARSE_OPTIONS = declareOptions<ParseAtofOptions>("parseAtof", PARSE_SPEC);
const STREAM_OPTIONS = declareOptions<StreamAtofOptions>("streamAtofFile", {
  ...PARSE_SPEC,
  onProgress: is.function,
  progressEvery: is.positiveInteger,
  onWarning: is.function,
  skipBadLines: is.boolean,
});

/** One event with the line it was read from (what a spilling sort writes back out unchanged). */
export interface AtofRecord {
  event: AtofEvent;
  /** The line as read, without its line end. */
  text: string;
  lineNo: number;
  /** Where the line starts in the file, in bytes, and its length in bytes without its `\n`: a reader can read it again. */
  offset: number;
  bytes: number;
}

export interface AtofReadResult {
  events: AtofEvent[];
  warnings: AtofWarning[];
}

/** Warning code of a last line cut off mid-event (a writer was killed or is still writing): skipped, never half-read. */
export const TORN_LAST_LINE = "torn_last_line";
/** Warning code of a bad line skipped because `skipBadLines` is set. */
export const SKIPPED_LINE = "skipped_line";
/** Warnings a streaming read returns at most; `onWarning` still receives every one. */
export const MAX_KEPT_WARNINGS = 1000;
/** Warning code of the last returned warning when more than MAX_KEPT_WARNINGS were raised: how many were not kept. */
export const WARNINGS_NOT_KEPT = "warnings_not_kept";

/** The `torn_last_line` warning's text. */
export function tornLastLineMessage(bytes: number): string {
  return `the last line (${bytes} bytes) ends without a line end and is not complete JSON: skipped`;
}

/** True when `text` is complete JSON (a last line without its line end may still be a whole event). */
export function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function maxLineOf(options: ParseAtofOptions): number {
  return options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
}

function tooLong(lineNo: number, bytes: number, max: number): AtofParseError {
  return new AtofParseError(lineNo, `line is longer than ${max} bytes (${bytes} so far); raise maxLineBytes to read it`);
}

/** Reads lines into events; shared by the text and the file readers so both behave the same. */
class LineReader {
  private readonly pairing: AtofPairingChecker | null;
  lineNo = 0;

  constructor(
    options: ParseAtofOptions,
    private readonly warnings: AtofWarning[],
  ) {
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

  /** A line that could not be taken (torn or skipped) still counts for the numbers of the next ones. */
  skip(code: string, message: string): void {
    this.lineNo += 1;
    this.warnings.push({ lineNo: this.lineNo, code, message });
  }
}

/** Parses a whole ATOF JSONL text (blank lines skipped). Throws AtofParseError on the first bad line. */
export function parseAtof(text: string, options: ParseAtofOptions = {}): AtofReadResult {
  PARSE_OPTIONS.check(options);
  const max = maxLineOf(options);
  const warnings: AtofWarning[] = [];
  const reader = new LineReader(options, warnings);
  const events: AtofEvent[] = [];
  let from = 0;
  while (from <= text.length) {
    let end = text.indexOf("\n", from);
    if (end < 0) end = text.length;
    const line = text.slice(from, end);
    if (line.length > max / 3 && Buffer.byteLength(line, "utf8") > max)
      throw tooLong(reader.lineNo + 1, Buffer.byteLength(line, "utf8"), max);
    const event = reader.next(line);
    if (event !== null) events.push(event);
    from = end + 1;
  }
  return { events, warnings };
}

/** Reads and parses a whole ATOF JSONL file into memory (what `streamAtofFile` yields and returns, collected; same options). */
export async function readAtofFile(path: string, options: StreamAtofOptions = {}): Promise<AtofReadResult> {
  STREAM_OPTIONS.check(options, "readAtofFile");
  const events: AtofEvent[] = [];
  const stream = streamAtofFile(path, options);
  for (;;) {
    const step = await stream.next();
    if (step.done) return { events, warnings: step.value };
    events.push(step.value);
  }
}

/**
 * Streams the events of an ATOF JSONL file line by line, in memory bounded by `maxLineBytes`.
 * Throws AtofParseError (from the iteration) on the first bad or overlong line. A last line without
 * its `\n` that is not complete JSON (a writer killed mid-line) is skipped with a `torn_last_line`
 * warning: a reader never yields part of an event. Returns the first MAX_KEPT_WARNINGS warnings,
 * then one `warnings_not_kept` warning counting the rest (a file of a million skipped lines must
 * not hold a million warnings); `onWarning` receives every one as it is raised.
 */
export async function* streamAtofFile(path: string, options: StreamAtofOptions = {}): AsyncGenerator<AtofEvent, AtofWarning[]> {
  STREAM_OPTIONS.check(options);
  const records = streamAtofRecords(path, options);
  for (;;) {
    const step = await records.next();
    if (step.done) return step.value;
    yield step.value.event;
  }
}

/** `streamAtofFile`, yielding each event with its line's text and number. */
export async function* streamAtofRecords(path: string, options: StreamAtofOptions = {}): AsyncGenerator<AtofRecord, AtofWarning[]> {
  STREAM_OPTIONS.check(options, "streamAtofRecords");
  const max = maxLineOf(options);
  const warnings: AtofWarning[] = [];
  const reader = new LineReader(options, warnings);
  const every = Math.max(1, options.progressEvery ?? 1000);
  let reported = 0;
  let bytes = 0;
  let notKept = 0;
  for await (const line of splitFileLines(path, max)) {
    const offset = bytes;
    bytes += line.terminated ? line.bytes + 1 : line.bytes;
    const before = warnings.length;
    let event: AtofEvent | null = null;
    if (line.text === null) throw tooLong(line.lineNo, line.bytes, max);
    if (!line.terminated && line.text.trim() !== "" && !isCompleteJson(line.text)) {
      reader.skip(TORN_LAST_LINE, tornLastLineMessage(line.bytes));
    } else if (options.skipBadLines) {
      try {
        event = reader.next(line.text);
      } catch (error) {
        if (!(error instanceof AtofParseError)) throw error;
        warnings.push({ lineNo: error.lineNo, code: SKIPPED_LINE, message: `skipped: ${error.reason}` });
      }
    } else {
      event = reader.next(line.text);
    }
    if (warnings.length > before) {
      if (options.onWarning) for (let i = before; i < warnings.length; i++) options.onWarning(warnings[i]!);
      if (warnings.length > MAX_KEPT_WARNINGS) {
        notKept += warnings.length - MAX_KEPT_WARNINGS;
        warnings.length = MAX_KEPT_WARNINGS;
      }
    }
    if (options.onProgress && reader.lineNo % every === 0) {
      reported = reader.lineNo;
      options.onProgress(reported, bytes);
    }
    if (event !== null) yield { event, text: line.text, lineNo: reader.lineNo, offset, bytes: line.bytes };
  }
  if (options.onProgress && reported !== reader.lineNo) options.onProgress(reader.lineNo, bytes);
  if (notKept > 0) {
    warnings.push({
      lineNo: reader.lineNo,
      code: WARNINGS_NOT_KEPT,
      message: `${notKept} more warnings were raised and not kept (the first ${MAX_KEPT_WARNINGS} are)`,
    });
  }
  return warnings;
}
