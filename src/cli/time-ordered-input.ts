import type { AtofWarning } from "../events/atof-errors.js";
import type { StreamAtofOptions } from "../events/atof-reader.js";
import { parseTimestamp } from "../events/timestamp.js";
import type { AtofEvent } from "../events/types.js";
import { mergeByTime, type TimedRecord } from "./event-merge.js";
import { RunSorter } from "./external-sort.js";
import { atofRecordsOf, isTimeOrdered } from "./input.js";
import { SpillDirectory } from "./spill-directory.js";

export interface TimeOrderedReadOptions {
  /** Skip bad lines in the middle of a file with a warning instead of failing (`--lenient`). */
  lenient?: boolean;
  onProgress?: (file: string, lines: number) => void;
  onWarning?: (file: string, warning: AtofWarning) => void;
  /** Line text per sort run (default 8 MiB): the memory an unsorted file's sort takes. */
  runBytes?: number;
  /** Sees every event (some more than once) before the merged stream yields its first: what a consumer must know of the whole input up front. */
  beforeMerge?: (event: AtofEvent) => void;
}

function readOptions(file: string, options: TimeOrderedReadOptions): StreamAtofOptions {
  const { onProgress, onWarning } = options;
  return {
    ...(options.lenient ? { skipBadLines: true } : {}),
    ...(onProgress ? { onProgress: (lines: number) => onProgress(file, lines) } : {}),
    ...(onWarning ? { onWarning: (w: AtofWarning) => onWarning(file, w) } : {}),
  };
}

async function* timed(file: string, options: TimeOrderedReadOptions): AsyncGenerator<TimedRecord> {
  for await (const { event, text } of atofRecordsOf(file, readOptions(file, options))) yield { event, us: parseTimestamp(event.timestamp), text };
}

/**
 * The events of ATOF files as one stream in time order, ties in file order then line order
 * (what a stable sort of all files' events, concatenated, gives), in bounded memory: a file
 * already in time order (what relaytrace writes) is streamed as it is; another is sorted
 * externally (runs of `runBytes` spilled to a private temp directory, removed afterwards even
 * on error or signal); then all are merged k ways. Lines are checked (and warnings reported)
 * in file order.
 */
export async function* eventsInTimeOrder(files: readonly string[], options: TimeOrderedReadOptions = {}): AsyncGenerator<AtofEvent> {
  let spill: SpillDirectory | undefined;
  const spillDirectory = () => (spill ??= new SpillDirectory());
  try {
    const streams: AsyncIterable<TimedRecord>[] = [];
    for (const file of files) {
      if (await isTimeOrdered(file, options.lenient === true, options.beforeMerge)) {
        streams.push(timed(file, options));
        continue;
      }
      const sorter = new RunSorter(spillDirectory, options.runBytes);
      for await (const { event, text, lineNo } of atofRecordsOf(file, readOptions(file, options))) {
        options.beforeMerge?.(event);
        sorter.add(parseTimestamp(event.timestamp), lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      }
      streams.push(...(await sorter.finish()));
    }
    for await (const record of mergeByTime(streams)) yield record.event;
  } finally {
    spill?.remove();
  }
}
