import { open, readFile } from "node:fs/promises";
import type { AtofEvent } from "../events/types.js";
import { streamAtofFile, streamAtofRecords, type AtofRecord, type StreamAtofOptions } from "../events/atof-reader.js";
import { copiedPath, InputCopyError, readablePath } from "./input-spool.js";

export type InputKind = "atif" | "atof";

/** A missing or unreadable input file: one clear line, exit code 2. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

/** One line for a file that cannot be read: the usual causes by name. */
export function describeReadError(path: string, error: unknown): InputError {
  if (error instanceof InputError) return error;
  if (error instanceof InputCopyError) return new InputError(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new InputError(`${path}: no such file`);
  if (code === "EISDIR") return new InputError(`${path}: is a directory, not a file`);
  if (code === "EACCES") return new InputError(`${path}: permission denied`);
  return new InputError(`${path}: cannot read (${(error as Error).message})`);
}

/**
 * ATIF is one JSON document with a `schema_version`; ATOF is one event per line. The first
 * line decides, so a large ATOF file is never read whole just to tell what it is.
 */
export async function detectKind(path: string): Promise<InputKind> {
  let head: string;
  try {
    const handle = await open(await readablePath(path), "r");
    try {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw describeReadError(path, error);
  }
  const firstLine = head.split("\n", 1)[0]!.trim();
  try {
    const first = JSON.parse(firstLine) as unknown;
    if (first && typeof first === "object" && "kind" in first) return "atof";
  } catch {
    // not a complete JSON line: a pretty-printed document or garbage
  }
  if (/"schema_version"\s*:/.test(head) || path.endsWith(".json")) return "atif";
  return "atof";
}

export async function readJsonDocument(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(await readablePath(path), "utf8");
  } catch (error) {
    throw describeReadError(path, error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

function inputErrorOf(path: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code || error instanceof InputCopyError) return describeReadError(path, error);
  return new InputError(`${path}: ${(error as Error).message}`);
}

/** The events of an ATOF file, streamed; read errors become one-line InputErrors. */
export async function* atofEventsOf(path: string, options: StreamAtofOptions = {}): AsyncGenerator<AtofEvent> {
  try {
    for await (const event of streamAtofFile(await readablePath(path), options)) yield event;
  } catch (error) {
    throw inputErrorOf(path, error);
  }
}

/** `atofEventsOf` with each event's line (for a sort that spills lines as they were read). */
export async function* atofRecordsOf(path: string, options: StreamAtofOptions = {}): AsyncGenerator<AtofRecord> {
  try {
    // Read once from the start: a pipe needs no copy here, only one the format check already made.
    for await (const record of streamAtofRecords(await copiedPath(path), options)) yield record;
  } catch (error) {
    throw inputErrorOf(path, error);
  }
}
