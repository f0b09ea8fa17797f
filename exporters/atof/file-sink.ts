import { constants } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { DiagnosticCounter } from "./diagnostics.js";
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
  private handle: FileHandle | null = null;
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
    this.schedule();
    return true;
  }

  async flush(): Promise<void> {
    while (this.writing !== null || this.buffer.length > 0) await this.pump();
    if (this.handle === null) return;
    try {
      await this.handle.sync();
    } catch (err) {
      this.diagnostics.add("atof.write_failed", `fsync ${this.filePath}: ${messageOf(err)}`);
    }
  }

  close(): Promise<void> {
    this.closed ??= this.flush().then(async () => {
      const handle = this.handle;
      this.handle = null;
      try {
        await handle?.close();
      } catch (err) {
        this.diagnostics.add("atof.write_failed", `close ${this.filePath}: ${messageOf(err)}`);
      }
    });
    return this.closed;
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
      const handle = await this.open();
      const bytes = Buffer.from(text, "utf8");
      let offset = 0;
      // A short write only happens on errors like a full disk; finish the batch so lines stay whole.
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
    } catch (err) {
      this.diagnostics.add("atof.write_failed", `write ${this.filePath}: ${messageOf(err)}`);
      this.diagnostics.add("atof.events_dropped", `${lineCount} events lost: could not write ${this.filePath}`, lineCount);
    }
  }

  /** Opens lazily (and again after a failure, in case the directory becomes writable). */
  private async open(): Promise<FileHandle> {
    if (this.handle !== null) return this.handle;
    await mkdir(dirname(this.filePath), { recursive: true });
    const flags = this.truncateOnOpen ? APPEND | constants.O_TRUNC : APPEND;
    this.handle = await open(this.filePath, flags, 0o644);
    this.truncateOnOpen = false;
    return this.handle;
  }
}
