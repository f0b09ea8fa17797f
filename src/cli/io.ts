/** Where a command prints: its result lines, its error lines and its progress. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Progress on long work (stderr; overwritten in place on a terminal). */
  progress(line: string): void;
  /**
   * Resolves once what `out` wrote has been taken by the reader: a command that prints much more
   * than it holds waits here, so a slow reader (a pipe) never makes the output pile up in memory.
   */
  drained?(): Promise<void>;
}

/** One line for a failed write: the usual causes by name, else the system's message. */
export function describeWriteError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "its directory does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  if (code === "ENOTDIR") return "a part of the path is a file, not a directory";
  if (code === "ENOSPC") return "no space left on the device";
  return error instanceof Error ? error.message : String(error);
}
