import type { AtofLine } from "./line-buffer.js";

/** Where the ATOF exporter's serialized lines go. Implementations never throw or reject. */
export interface AtofSink {
  /** Takes one line's JSON text, whole or in pieces (the sink adds the line end); returns false when it had to drop it (buffer full). */
  enqueue(line: AtofLine): boolean;
  /** Resolves when every line enqueued so far has been written (and made durable) or counted as dropped. */
  flush(): Promise<void>;
  /** Flushes, then releases the sink's resources. */
  close(): Promise<void>;
}
