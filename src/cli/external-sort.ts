import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { parseAtofLine } from "../events/atof-parse.js";
import { DEFAULT_MAX_LINE_BYTES } from "../events/atof-reader.js";
import { splitFileLines } from "../events/line-splitter.js";
import { parseTimestamp } from "../events/timestamp.js";
import { mergeByTime, type TimedRecord } from "./event-merge.js";
import type { SpillDirectory } from "./spill-directory.js";

/** Line text held per sort run before it is sorted and spilled: what bounds a sort's memory. */
export const DEFAULT_RUN_BYTES = 8 * 1024 * 1024;
/** Runs merged at once; more are first merged in groups of this many (open files and read buffers stay bounded). */
const FAN_IN = 64;
/** Read size of each run while merging: FAN_IN of them are open at once. */
const RUN_READ_BYTES = 64 * 1024;
const WRITE_PIECE = 1024 * 1024;

/** A run's lines, sorted, read back as records. */
async function* readRun(path: string): AsyncGenerator<TimedRecord> {
  for await (const line of splitFileLines(path, DEFAULT_MAX_LINE_BYTES, RUN_READ_BYTES)) {
    const text = line.text!; // written by us: every line is whole and below the cap it was read under
    const event = parseAtofLine(text, line.lineNo);
    yield { event, us: parseTimestamp(event.timestamp), text };
  }
}

/** Writes texts as lines, in pieces, synchronously (a run is at most one run's bytes). */
class LineFile {
  private readonly fd: number;
  private piece: string[] = [];
  private pieceChars = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, "wx", 0o600);
  }

  add(text: string): void {
    this.piece.push(text);
    this.pieceChars += text.length + 1;
    if (this.pieceChars >= WRITE_PIECE) this.flush();
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.piece.length === 0) return;
    const bytes = Buffer.from(`${this.piece.join("\n")}\n`, "utf8");
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    this.piece = [];
    this.pieceChars = 0;
  }
}

/**
 * An external merge sort of one stream's records by time, ties in stream order: runs of at most
 * `runBytes` of line text are sorted in memory and spilled to `spill`, then read back merged.
 * A stream that fits in one run never touches the disk. Returns streams that `mergeByTime`
 * (with any others) puts in order; memory is one run while sorting, one record per run after.
 */
export class RunSorter {
  private held: { us: number; seq: number; text: string }[] = [];
  private heldChars = 0;
  private seq = 0;
  private readonly runs: string[] = [];

  constructor(
    private readonly spill: () => SpillDirectory,
    private readonly runBytes = DEFAULT_RUN_BYTES,
  ) {}

  add(us: number, text: string): void {
    this.held.push({ us, seq: this.seq++, text });
    this.heldChars += text.length;
    if (this.heldChars >= this.runBytes) this.spillRun();
  }

  /** The sorted streams, ready for `mergeByTime`. */
  async finish(): Promise<AsyncIterable<TimedRecord>[]> {
    if (this.runs.length === 0) {
      const held = this.sortedHeld();
      return [
        (async function* inMemory() {
          for (const r of held) {
            const event = parseAtofLine(r.text);
            yield { event, us: r.us, text: r.text };
          }
        })(),
      ];
    }
    if (this.held.length > 0) this.spillRun();
    while (this.runs.length > FAN_IN) await this.mergeFirstRuns();
    return this.runs.map((path) => readRun(path));
  }

  private sortedHeld(): { us: number; seq: number; text: string }[] {
    const held = this.held;
    this.held = [];
    this.heldChars = 0;
    return held.sort((a, b) => a.us - b.us || a.seq - b.seq);
  }

  private spillRun(): void {
    const file = new LineFile(this.spill().nextFile());
    for (const r of this.sortedHeld()) file.add(r.text);
    file.close();
    this.runs.push(file.path);
  }

  /** Replaces the first FAN_IN runs by their merge (runs are consecutive parts of the stream, so order on ties holds). */
  private async mergeFirstRuns(): Promise<void> {
    const group = this.runs.splice(0, FAN_IN);
    const file = new LineFile(this.spill().nextFile());
    for await (const r of mergeByTime(group.map((path) => readRun(path)))) file.add(r.text);
    file.close();
    for (const path of group) rmSync(path, { force: true });
    this.runs.unshift(file.path);
  }
}
