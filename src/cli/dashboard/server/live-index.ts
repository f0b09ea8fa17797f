import { watch, type FSWatcher } from "node:fs";
import { basename } from "node:path";
import { parseAtofLine } from "../../../events/atof-parse.js";
import { AtofParseError } from "../../../events/atof-errors.js";
import type { IndexedFile, RunsAnswer } from "../model.js";
import { DirectoryTail, type TailLine } from "./directory-tail.js";
import { RunIndex } from "./run-index.js";
import type { RunRecord } from "./run-record.js";

/** Corrupt lines named one by one in the page's notes; past this they are only counted. */
const NAMED_PROBLEMS = 20;

export interface LiveIndexOptions {
  /** How often the directory is looked at, besides the file system's change notices (ms). */
  pollMs?: number;
  /** Longest line read (bytes); a longer one is counted as corrupt and skipped. */
  maxLineBytes?: number;
}

/** What one pass over the files counted. */
interface FileCounts {
  lines: number;
  badLines: number;
}

/**
 * The runs of a directory, kept current: polls the files (and wakes early on a change notice),
 * reads each new line into the run index and counts the lines it cannot read. Rebuilds from
 * scratch, under a new epoch, when a file shrank or was replaced.
 */
export class LiveIndex {
  epoch = 1;
  ready = false;
  private index = new RunIndex();
  private tail: DirectoryTail;
  private counts: FileCounts[] = [];
  private badLines = 0;
  private problems: string[] = [];
  private notes: string[] = [];
  private polling: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private closed = false;

  constructor(
    private readonly realDir: string,
    private readonly options: LiveIndexOptions = {},
  ) {
    this.tail = this.newTail();
  }

  private newTail(): DirectoryTail {
    return new DirectoryTail(
      this.realDir,
      (line) => this.take(line),
      (file, lineNo) => this.bad(file, lineNo, `line is longer than ${this.options.maxLineBytes ?? "64 MiB"} bytes: skipped`),
      this.options.maxLineBytes,
      () => this.closed,
    );
  }

  /** Reads every file once (the index is then ready) and keeps following them. */
  async start(): Promise<void> {
    await this.poll();
    if (this.closed) return; // stopped during the first pass: nothing to follow
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 500);
    try {
      // A writer busy on a file sends a notice per write: one pass per 50 ms is enough.
      let soon: NodeJS.Timeout | undefined;
      this.watcher = watch(this.realDir, () => {
        soon ??= setTimeout(() => {
          soon = undefined;
          if (!this.closed) void this.poll();
        }, 50);
      });
      this.watcher.on("error", () => this.watcher?.close());
    } catch {
      // No change notices here: the interval alone keeps the index current.
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.watcher?.close();
  }

  /** One pass; a pass asked for while one runs runs once more after it. */
  poll(): Promise<void> {
    if (this.polling) {
      this.again = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.closed);
    })().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pass(): Promise<void> {
    let result;
    try {
      result = await this.tail.poll();
    } catch (error) {
      this.notes = [`cannot read the directory: ${(error as Error).message}`];
      this.ready = true;
      return;
    }
    if (result) {
      this.restart(result.reset);
      await this.pass();
      return;
    }
    this.ready = true;
  }

  private restart(reason: string): void {
    this.index = new RunIndex();
    this.tail = this.newTail();
    this.counts = [];
    this.badLines = 0;
    this.problems = [];
    this.notes = [`read again from the start: ${reason}`];
    this.epoch++;
  }

  private take(line: TailLine): void {
    const counts = (this.counts[line.file] ??= { lines: 0, badLines: 0 });
    counts.lines++;
    if (line.text.trim() === "") return;
    try {
      this.index.add(parseAtofLine(line.text, line.lineNo), line.file, line.offset, line.length);
    } catch (error) {
      if (!(error instanceof AtofParseError)) throw error;
      this.bad(line.file, line.lineNo, error.reason);
    }
  }

  private bad(file: number, lineNo: number, reason: string): void {
    const counts = (this.counts[file] ??= { lines: 0, badLines: 0 });
    counts.badLines++;
    this.badLines++;
    if (this.problems.length < NAMED_PROBLEMS) this.problems.push(`${this.tail.files[file]?.name ?? "?"}:${lineNo}: ${reason}`);
  }

  /** The run a trace id names, with the files its lines are in. */
  find(id: string): { record: RunRecord; files: DirectoryTail["files"] } | undefined {
    const record = this.index.find(id);
    return record ? { record, files: this.tail.files } : undefined;
  }

  fileNames(): string[] {
    return this.tail.files.map((f) => f.name);
  }

  /** What changed since version `since` of epoch `epoch` (everything when the epoch is not the current one). */
  answer(epoch: number, since: number): RunsAnswer {
    const full = epoch !== this.epoch || since <= 0;
    const { runs, removed } = this.index.changedSince(full ? 0 : since, this.fileNames());
    const files: IndexedFile[] = this.tail.files.map((f, i) => ({
      name: f.name,
      bytes: f.offset,
      lines: this.counts[i]?.lines ?? 0,
      badLines: this.counts[i]?.badLines ?? 0,
      ...(f.deleted ? { deleted: true } : {}),
    }));
    const problems = [...this.notes, ...this.tail.refused.map((r) => `not read: ${r}`), ...this.problems];
    if (this.badLines > this.problems.length) problems.push(`${this.badLines - this.problems.length} more corrupt lines`);
    return {
      dir: basename(this.realDir),
      ready: this.ready,
      epoch: this.epoch,
      version: this.index.version,
      full,
      runs,
      removed,
      files,
      badLines: this.badLines,
      problems,
      looseMarks: this.index.looseMarkCount(),
    };
  }
}
