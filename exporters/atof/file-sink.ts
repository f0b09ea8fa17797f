import { close, constants, fsync, mkdirSync, openSync, write, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { LineBuffer } from "./line-buffer.js";
import type { AtofSink } from "./sink.js";

const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Appends lines to one file. Lines are buffered and written in batches off the event path; each batch
 * is one write of whole lines on an O_APPEND descriptor, so a killed process never leaves half a line.
 */
export class FileSink implements AtofSink {
  private fd: number | null = null;
  private truncateOnOpen: boolean;
  private writing: Promise<void> | null = null;
  private scheduled = false;
  private closed: Promise<void> | null = null;

  constructor(
    readonly filePath: string,
    mode: "append" | "overwrite",
    private readonly buffer: LineBuffer,
    private readonly diagnostics: DiagnosticCounter,
  ) {
    this.truncateOnOpen = mode === "overwrite";
  }

  enqueue(line: string): boolean {
    if (!this.buffer.push(line)) return false;
    // An app that never yields to the event loop (a tight loop of tool calls) never lets the
    // batched write run: past half the buffer, write synchronously instead of dropping later.
    if (this.buffer.pastHighWater && this.writing === null) this.writeNowSync();
    else this.schedule();
    return true;
  }

  async flush(): Promise<void> {
    while (this.writing !== null || this.buffer.length > 0) await this.pump();
    const fd = this.fd;
    if (fd === null) return;
    await new Promise<void>((resolve) => {
      fsync(fd, (err) => {
        if (err) this.diagnostics.record("atof.write_failed", `fsync ${this.filePath}: ${messageOf(err)}`);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    this.closed ??= this.flush().then(async () => {
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

  private writeNowSync(): void {
    const lines = this.buffer.take();
    try {
      const fd = this.open();
      const bytes = Buffer.from(lines.join(""), "utf8");
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (err) {
      this.lost(err, lines.length);
    }
  }

  /** Batches everything delivered in the same turn of the event loop into one write. */
  private schedule(): void {
    if (this.scheduled || this.writing !== null) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  private pump(): Promise<void> {
    this.writing ??= this.drain().finally(() => {
      this.writing = null;
      // Lines may arrive between the last drain check and this callback.
      if (this.buffer.length > 0) this.schedule();
    });
    return this.writing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const lines = this.buffer.take();
      await this.writeBatch(lines.join(""), lines.length);
    }
  }

  private async writeBatch(text: string, lineCount: number): Promise<void> {
    try {
      const fd = this.open();
      const bytes = Buffer.from(text, "utf8");
      let offset = 0;
      // A short write only happens on errors like a full disk; finish the batch so lines stay whole.
      while (offset < bytes.length) {
        offset += await new Promise<number>((resolve, reject) => {
          write(fd, bytes, offset, bytes.length - offset, null, (err, written) => (err ? reject(err) : resolve(written)));
        });
      }
    } catch (err) {
      this.lost(err, lineCount);
    }
  }

  private lost(err: unknown, lineCount: number): void {
    this.diagnostics.record("atof.write_failed", `write ${this.filePath}: ${messageOf(err)}`);
    this.diagnostics.record("atof.events_dropped", `${lineCount} events lost: could not write ${this.filePath}`, lineCount);
  }

  /**
   * Opens lazily, once (again after a failure, in case the directory becomes writable). Opening
   * is synchronous so both write paths share one descriptor and one order.
   */
  private open(): number {
    if (this.fd !== null) return this.fd;
    mkdirSync(dirname(this.filePath), { recursive: true });
    const flags = this.truncateOnOpen ? APPEND | constants.O_TRUNC : APPEND;
    this.fd = openSync(this.filePath, flags, 0o644);
    this.truncateOnOpen = false;
    return this.fd;
  }
}
