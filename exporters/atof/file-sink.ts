import { close, closeSync, constants, fstatSync, fsync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { isSymbolicLink } from "../files/linked-directory.js";
import { dirname } from "node:path";
import { makeDirectory } from "../files/make-directory.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import { processExiting, writeOnExit, type SyncWriter } from "./exit-writes.js";
import { wholeLinesIn, type AtofLine, type LineBuffer } from "./line-buffer.js";
import { claimPath } from "./path-claims.js";
import type { AtofSink } from "./sink.js";
import type { RotatedFileSet } from "./rotation.js";
import { claimNextFile, repairNewestClosed, writeAcrossFiles } from "./rotating-write.js";
import { isRegularOrAbsent, isWritableTarget } from "./file-targets.js";
import { repairTail } from "./tail-repair.js";
import { claimWriter, describeHolder, processName, type WriterClaim } from "./writer-claim.js";

const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface FileSinkSettings {
  mode: "append" | "overwrite";
  followSymlinks: boolean;
  /** Longest last line the open-time repair parses to decide whether it is whole. */
  maxLineBytes: number;
  /** Rotation: the file set to write one file after another (see rotation.ts); unset, one file. */
  rotation?: RotatedFileSet;
}

/**
 * Appends lines to one file, as its only writer: within the process (path claims) and across
 * processes (a claim file beside it, see writer-claim.ts). Lines are buffered and written in batches one event-loop turn later,
 * synchronously, so `process.exit()` can write what is left and no batch is ever half in flight.
 * A failed or short write is cut back to the last whole line: an event counted as dropped leaves
 * no bytes in the file. A torn last line an earlier (killed) writer left is repaired on open.
 * With rotation, each file of the set is claimed, written and closed in turn (see `rotate`).
 */
export class FileSink implements AtofSink, SyncWriter {
  private fd: number | null = null;
  private opened = false;
  private scheduled = false;
  private closed: Promise<void> | null = null;
  private releaseClaim: () => void;
  private path: string;
  /** When the current file was opened (rotation by age), by the rotation's clock. */
  private fileStartedAt = 0;
  private repairedSet = false;
  private readonly stopExitWrite: () => void;
  /** The cross-process claim: taken at construction, or at the first open when the directory did not exist yet. */
  private writerClaim: WriterClaim | undefined;
  private claimPending = true;
  /** Where the file ends after this sink's last write; undefined until the first, and after a failure. */
  private knownEnd: number | undefined;

  /**
   * Throws when another sink of this process, or another live process, writes `filePath`, or when
   * it is a symlink and `followSymlinks` is off.
   */
  constructor(
    filePath: string,
    private readonly settings: FileSinkSettings,
    private readonly buffer: LineBuffer,
    private readonly diagnostics: DiagnosticCounter,
    private readonly owner: string,
  ) {
    if (!settings.followSymlinks && isSymbolicLink(filePath)) {
      throw new Error(`${owner}: ${filePath} is a symbolic link; the file sink does not follow links unless followSymlinks is true`);
    }
    this.path = filePath;
    this.releaseClaim = () => {};
    if (settings.rotation) this.takeNextFile(false);
    else {
      this.releaseClaim = claimPath(filePath, owner);
      try {
        this.claimAcrossProcesses(false);
      } catch (error) {
        this.releaseClaim();
        throw new Error(`${owner}: ${messageOf(error)}`, { cause: error });
      }
    }
    this.stopExitWrite = writeOnExit(this);
  }

  /** The file written now (with rotation, the newest of the set). */
  get filePath(): string {
    return this.path;
  }

  enqueue(line: AtofLine): boolean {
    // Full, or this line alone is larger than the buffer's bound: a file can always be written
    // now, and an empty buffer takes a line of any size, so a large event is written, not dropped.
    if (!this.buffer.push(line)) {
      this.writeHeldLinesSync();
      if (!this.buffer.push(line)) return false;
    }
    // An app that never yields to the event loop (a tight loop of tool calls) never lets the
    // batched write run: past half the buffer, write now instead of dropping later. While the
    // process exits there is no later turn either.
    if (this.buffer.pastHighWater || processExiting()) this.writeHeldLinesSync();
    else this.schedule();
    return true;
  }

  async flush(): Promise<void> {
    this.writeHeldLinesSync();
    const fd = this.fd;
    if (fd === null) return;
    await new Promise<void>((resolve) => {
      fsync(fd, (err) => {
        // EINVAL: the file does not support fsync (a pipe, /dev/null); the lines are written.
        if (err && err.code !== "EINVAL") this.diagnostics.record("atof.write_failed", `fsync ${this.filePath}: ${messageOf(err)}`);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    this.closed ??= this.flush().then(async () => {
      this.stopExitWrite();
      this.writerClaim?.release();
      this.releaseClaim();
      const fd = this.fd;
      this.fd = null;
      if (fd === null) return;
      await new Promise<void>((resolve) => {
        close(fd, (err) => {
          if (err) this.diagnostics.record("atof.write_failed", `close ${this.filePath}: ${messageOf(err)}`);
          resolve();
        });
      });
    });
    return this.closed;
  }

  /** The process 'exit' listener: writes what is held, then gives the file up for the next writer. */
  atExit(): void {
    this.writeHeldLinesSync();
    this.writerClaim?.release();
  }

  /** Writes every held line now. Never throws. */
  writeHeldLinesSync(): void {
    if (this.buffer.length === 0) return;
    if (this.settings.rotation) return this.writeRotating(this.settings.rotation);
    let fd: number;
    try {
      fd = this.open();
    } catch (err) {
      this.lost(err, this.buffer.takeAll().lines);
      return;
    }
    const { bytes, lines } = this.buffer.takeAll();
    this.writeLines(fd, bytes, lines);
  }

  /**
   * Writes the held lines across as many files as the limits ask for: a line never straddles two
   * files, and one longer than `maxBytes` is written alone into a file of its own.
   */
  private writeRotating(rotation: RotatedFileSet): void {
    const { maxBytes = Infinity, maxAgeMs } = rotation.options;
    let fd: number;
    try {
      fd = this.open();
      if (maxAgeMs !== undefined && this.currentSize(fd) > 0 && rotation.now() - this.fileStartedAt > maxAgeMs) fd = this.rotate();
    } catch (err) {
      this.lost(err, this.buffer.takeAll().lines);
      return;
    }
    const { bytes } = this.buffer.takeAll();
    writeAcrossFiles(bytes, maxBytes, {
      size: () => this.currentSize(fd),
      next: () => {
        fd = this.rotate();
      },
      write: (chunk, lines) => this.writeLines(fd, chunk, lines),
      lost: (err, lines) => this.lost(err, lines),
    });
  }

  /** The current file's size: known from this sink's writes, else asked of the file. */
  private currentSize(fd: number): number {
    this.knownEnd ??= fstatSync(fd).size;
    return this.knownEnd;
  }

  /**
   * Closes the current file (made durable first: a closed file is whole even after a power loss)
   * and gives up its claims, then claims and opens the next file of the set. Throws when the next
   * file cannot be opened (the caller counts the lines it could not write).
   */
  private rotate(): number {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) {
      try {
        fsyncSync(fd);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EINVAL")
          this.diagnostics.record("atof.write_failed", `fsync ${this.path}: ${messageOf(err)}`);
      }
      try {
        closeSync(fd);
      } catch (err) {
        this.diagnostics.record("atof.write_failed", `close ${this.path}: ${messageOf(err)}`);
      }
    }
    this.writerClaim?.release();
    this.writerClaim = undefined;
    this.releaseClaim();
    this.releaseClaim = () => {};
    this.opened = false;
    this.takeNextFile(true);
    return this.open();
  }

  /**
   * Names and claims the set's next file: a name another sink of this process or a live process
   * holds (both started a file the same millisecond) is passed over for the next one.
   */
  private takeNextFile(atOpen: boolean): void {
    this.releaseClaim = claimNextFile(this.settings.rotation!, this.owner, (path) => {
      this.path = path;
      this.claimPending = true;
      this.claimAcrossProcesses(atOpen);
    });
  }

  /** Once per sink: the set's newest earlier file is repaired (see repairNewestClosed). */
  private repairSet(rotation: RotatedFileSet): void {
    this.repairedSet = true;
    repairNewestClosed(
      rotation,
      this.path,
      (path) => this.repair(path),
      (path, err) => this.diagnostics.record("atof.write_failed", `repair ${path}: ${messageOf(err)}`),
    );
  }

  /** Removes the set's oldest closed files past `keep` (after a new file opens). */
  private removeOldFiles(rotation: RotatedFileSet): void {
    for (const failure of rotation.removeOld(this.path)) this.diagnostics.record("atof.rotate_remove_failed", failure);
  }

  /** Batches everything delivered in the same turn of the event loop into one write. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writeHeldLinesSync();
    });
  }

  private writeLines(fd: number, bytes: Buffer, lines: number): void {
    let start = 0;
    let offset = 0;
    try {
      // Where the file ends is needed only to cut back a failed write. As its claimed writer, the
      // sink knows it from its own writes: no fstat per batch (a foreign append is caught below).
      start = this.knownEnd ?? fstatSync(fd).size;
      while (offset < bytes.length) {
        const written = writeSync(fd, bytes, offset, bytes.length - offset);
        // A file that accepts nothing (some /proc and /sys entries) would make this loop spin.
        if (written <= 0) throw new Error(`${this.filePath} accepted no bytes`);
        offset += written;
      }
      this.knownEnd = start + offset;
    } catch (err) {
      this.knownEnd = undefined;
      this.cutBack(fd, bytes, lines, start, offset, err);
    }
  }

  /** After a failure `written` bytes into the batch: keep the whole lines, remove the fragment, count the rest as dropped. */
  private cutBack(fd: number, bytes: Buffer, lines: number, start: number, written: number, err: unknown): void {
    const kept = wholeLinesIn(bytes, written);
    if (written > kept.bytes) {
      try {
        // Only when the file ends where our batch ended: another process appending meanwhile (during
        // this write or since our last one) must not lose its lines.
        if (fstatSync(fd).size === start + written) ftruncateSync(fd, start + kept.bytes);
        else
          this.diagnostics.record("atof.write_failed", `${this.filePath}: a partial line could not be removed (the file grew meanwhile)`);
      } catch (truncateError) {
        this.diagnostics.record("atof.write_failed", `truncate ${this.filePath}: ${messageOf(truncateError)}`);
      }
    }
    this.lost(err, lines - kept.lines);
  }

  private lost(err: unknown, lineCount: number): void {
    this.diagnostics.record("atof.write_failed", `write ${this.filePath}: ${messageOf(err)}`);
    if (lineCount > 0)
      this.diagnostics.record("atof.events_dropped", `${lineCount} events lost: could not write ${this.filePath}`, lineCount);
  }

  /**
   * Opens lazily, once (again after a failure, in case the location becomes writable). The first
   * successful open truncates (overwrite) or repairs a torn tail (append).
   */
  private open(): number {
    if (this.fd !== null) return this.fd;
    makeDirectory(dirname(this.filePath));
    if (this.claimPending) this.claimAcrossProcesses(true);
    const noFollow = this.settings.followSymlinks ? 0 : constants.O_NOFOLLOW;
    const overwrite = this.settings.mode === "overwrite" && !this.opened;
    if (!overwrite) this.repair();
    let fd: number;
    try {
      // O_NONBLOCK: opening a FIFO nobody reads fails (ENXIO) instead of blocking the process.
      fd = openSync(this.filePath, APPEND | constants.O_NONBLOCK | noFollow | (overwrite ? constants.O_TRUNC : 0), 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ELOOP") {
        throw new Error(`${this.filePath} is a symbolic link; the file sink does not follow links unless followSymlinks is true`, {
          cause: err,
        });
      }
      throw err;
    }
    if (!isWritableTarget(fd)) {
      closeSync(fd);
      throw new Error(`${this.filePath} is not a regular file`);
    }
    this.fd = fd;
    this.knownEnd = undefined;
    this.opened = true;
    const rotation = this.settings.rotation;
    if (rotation) {
      this.fileStartedAt = rotation.now();
      if (!this.repairedSet) this.repairSet(rotation);
      this.removeOldFiles(rotation);
    }
    return fd;
  }

  /**
   * Takes the claim file beside the log; throws when a live process holds it. Without it, two
   * processes would interleave or erase lines, and one's open-time repair could cut off the line
   * the other is writing. Devices (/dev/null) need none; a directory that does not exist yet is
   * claimed at the first open; a claim file that cannot be made there is a diagnostic.
   */
  private claimAcrossProcesses(atOpen: boolean): void {
    if (!isRegularOrAbsent(this.filePath)) {
      this.claimPending = false;
      return;
    }
    const outcome = claimWriter(this.filePath);
    if (outcome.status === "held") {
      throw new Error(
        `${this.filePath} is already written by another process: ${describeHolder(outcome)}; one writer per file ` +
          "(give each process its own path: the default file name includes the pid)",
      );
    }
    if (outcome.status === "unavailable") {
      if (!atOpen) return; // the directory may not exist yet: try again at the first open
      this.claimPending = false;
      this.diagnostics.record(
        "atof.claim_failed",
        `${this.filePath}: could not create the writer claim beside it (${messageOf(outcome.error)}); ` +
          "another process writing this file would not be detected",
      );
      return;
    }
    this.claimPending = false;
    this.writerClaim = outcome.claim;
    const stale = outcome.staleRemoved;
    if (stale !== undefined) {
      const whose = stale.holder === undefined ? "" : ` of ${processName(stale.holder)}`;
      this.diagnostics.record(
        "atof.stale_claim_removed",
        `${outcome.claim.claimPath}: took over the stale claim${whose} (${stale.reason})`,
      );
    }
  }

  private repair(path: string = this.path): void {
    const repaired = repairTail(path, this.settings.maxLineBytes, this.settings.followSymlinks);
    if (repaired === undefined) return;
    const what =
      repaired.action === "truncated"
        ? `removed ${repaired.bytes} bytes of an incomplete last line (a writer stopped mid-line)`
        : "added the missing line end after the last event";
    this.diagnostics.record("atof.torn_tail_repaired", `${path}: ${what}`);
  }
}
