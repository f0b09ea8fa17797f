import { open, type FileHandle } from "node:fs/promises";
import { parseAtofLine } from "../events/atof-parse.js";
import type { AtofRecord } from "../events/atof-reader.js";
import type { AtofEvent } from "../events/types.js";
import { RecordingCollector, type LineRef, type Recording } from "./recording.js";

/** Reads one event's line again, where the first pass found it. */
async function readLine(handle: FileHandle, line: LineRef): Promise<AtofEvent> {
  const buffer = Buffer.alloc(line.bytes);
  const { bytesRead } = await handle.read(buffer, 0, line.bytes, line.offset);
  if (bytesRead < line.bytes) throw new Error(`the recording file changed while replaying: the line at byte ${line.offset} is gone`);
  let text = buffer.toString("utf8");
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (line.offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return parseAtofLine(text);
}

/**
 * The recording in an ATOF file, in one pass over `records` (the file's events with their lines):
 * each model call keeps where its start and end lines are, and its request and reply are read
 * again from the file when it is served. Memory holds a few numbers per call, whatever the size
 * of the recording. The file is opened before it is read, so it can go away (a piped recording's
 * scratch copy is removed) while the replay runs; `content.close()` closes it.
 */
export async function collectRecordingFile(path: string, records: AsyncIterable<AtofRecord>): Promise<Recording> {
  const handle = await open(path, "r");
  try {
    const collector = new RecordingCollector();
    for await (const { event, offset, bytes } of records) collector.push(event, { offset, bytes });
    return collector.resultFromLines(
      (line) => readLine(handle, line),
      () => handle.close(),
    );
  } catch (error) {
    await handle.close();
    throw error;
  }
}
