import { stat } from "node:fs/promises";
import type { AtofEvent } from "../events/types.js";
import { atofEventsOf, describeReadError } from "./input.js";
import { readablePath } from "./input-spool.js";
import { readWarningLine } from "./read-warnings.js";

export interface AtofFileReadOptions {
  /** Skip bad lines with a warning instead of failing (`--lenient`); a torn last line is skipped with a warning either way. */
  lenient?: boolean;
  /** Bytes read so far and the file's size, now and then. */
  onBytes?: (done: number, total: number) => void;
  /** Warnings (a skipped torn or bad line), one line each. */
  onWarning?: (message: string) => void;
}

/**
 * An ATOF file's events, streamed: memory stays bounded by one line plus what the consumer keeps,
 * and a slow consumer holds back the reading. Lines are read as every command reads them (see
 * `readWarningLine`).
 */
export async function* atofFileEvents(path: string, options: AtofFileReadOptions = {}): AsyncGenerator<AtofEvent> {
  let total: number;
  try {
    const info = await stat(await readablePath(path));
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    total = info.size;
  } catch (error) {
    throw describeReadError(path, error);
  }
  const { onBytes, onWarning } = options;
  yield* atofEventsOf(path, {
    ...(options.lenient ? { skipBadLines: true } : {}),
    progressEvery: 256,
    onProgress: (_lines, done) => onBytes?.(done, total),
    onWarning: (w) => {
      const line = readWarningLine(path, w);
      if (line !== undefined) onWarning?.(line);
    },
  });
}

/** `atofFileEvents`, each event handed to `onEvent` and awaited. */
export async function forEachAtofEvent(
  path: string,
  onEvent: (event: AtofEvent) => void | Promise<void>,
  options: AtofFileReadOptions = {},
): Promise<{ events: number }> {
  let events = 0;
  for await (const event of atofFileEvents(path, options)) {
    events++;
    await onEvent(event);
  }
  return { events };
}
