import type { AtofWarning } from "../events/atof-errors.js";
import type { StreamAtofOptions } from "../events/atof-reader.js";
import { parseTimestamp } from "../events/timestamp.js";
import type { AtofEvent } from "../events/types.js";
import { mergeByTime, type TimedRecord } from "./event-merge.js";
import { DEFAULT_RUN_BYTES, RunSorter } from "./external-sort.js";
import { atofRecordsOf } from "./input.js";
import { SpillDirectory } from "./spill-directory.js";

export interface TimeOrderedReadOptions {
  /** Skip bad lines in the middle of a file with a warning instead of failing (`--lenient`). */
  lenient?: boolean;
  onProgress?: (file: string, lines: number) => void;
  onWarning?: (file: string, warning: AtofWarning) => void;
  /** Line text per sort run (default 8 MiB): the memory an unsorted file's sort takes. */
  runBytes?: number;
  /**
   * Sees every event (some more than once) before the merged stream yields its first: what a consumer must know of the
   * whole input up front.
   */
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

async function* timed(file: string, options: StreamAtofOptions): AsyncGenerator<TimedRecord> {
  for await (const { event, text } of atofRecordsOf(file, options)) yield { event, us: parseTimestamp(event.timestamp), text };
}

async function* heldRecords(records: TimedRecord[]): AsyncGenerator<TimedRecord> {
  yield* records;
}

/**
 * Text of time-ordered files kept as parsed events for the merge; a quarter of a sort run, since a parsed event takes a
 * few times its line's memory.
 */
function heldBudget(runBytes: number): number {
  return Math.floor(runBytes / 4);
}

/**
 * The events of ATOF files as one stream in time order, ties in file order then line order
 * (what a stable sort of all files' events, concatenated, gives), in bounded memory. Each file is
 * read once, and its lines are checked (and warnings reported) then, in file order. While a
 * file is in time order (what relaytrace writes), its events are kept as read, up to a budget
 * shared by all files; past the budget only their order is checked, and such a file is read a
 * second time (silently) when the merge reaches it. A file out of order is sorted externally
 * (runs of `runBytes` spilled to a private temp directory, removed afterwards even on error or
 * signal). Then all are merged k ways.
 */
export async function* eventsInTimeOrder(files: readonly string[], options: TimeOrderedReadOptions = {}): AsyncGenerator<AtofEvent> {
  let spill: SpillDirectory | undefined;
  const spillDirectory = () => (spill ??= new SpillDirectory());
  const silent: StreamAtofOptions = options.lenient ? { skipBadLines: true } : {};
  let budget = heldBudget(options.runBytes ?? DEFAULT_RUN_BYTES);
  try {
    const streams: AsyncIterable<TimedRecord>[] = [];
    for (const file of files) {
      let held: TimedRecord[] | undefined = [];
      let heldChars = 0;
      let sorter: RunSorter | undefined;
      let last = -Infinity;
      let outOfOrderPastBudget = false;
      for await (const { event, text, lineNo } of atofRecordsOf(file, readOptions(file, options))) {
        options.beforeMerge?.(event);
        const us = parseTimestamp(event.timestamp);
        const line = lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        if (sorter) {
          sorter.add(us, line);
          continue;
        }
        if (us < last) {
          if (held === undefined) {
            // The first events are no longer held: sort the file from a second (silent) read.
            outOfOrderPastBudget = true;
            continue;
          }
          sorter = new RunSorter(spillDirectory, options.runBytes);
          for (const r of held) sorter.add(r.us, r.text);
          budget += heldChars;
          held = undefined;
          sorter.add(us, line);
          continue;
        }
        last = us;
        if (held === undefined) continue;
        held.push({ event, us, text: line });
        heldChars += line.length;
        if (heldChars > budget) {
          held = undefined; // past the budget: checked for order only, read again by the merge
          heldChars = 0;
        }
      }
      if (sorter) {
        streams.push(...(await sorter.finish()));
      } else if (outOfOrderPastBudget) {
        const late = new RunSorter(spillDirectory, options.runBytes);
        for await (const { event, text, lineNo } of atofRecordsOf(file, silent))
          late.add(parseTimestamp(event.timestamp), lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
        streams.push(...(await late.finish()));
      } else if (held) {
        budget -= heldChars;
        streams.push(heldRecords(held));
      } else {
        streams.push(timed(file, silent));
      }
    }
    for await (const record of mergeByTime(streams)) yield record.event;
  } finally {
    spill?.remove();
  }
}
