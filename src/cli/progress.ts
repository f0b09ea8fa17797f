import type { Io } from "./io.js";

export interface ProgressState {
  label: string;
  done: number;
  total: number;
  elapsedMs: number;
  /** A bar (a terminal) or a plain line (a log). */
  bar: boolean;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

function eta(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** `reading big.jsonl  42% (12.3 MB of 29.1 MB), about 8s left`, with a bar in front on a terminal. */
export function formatProgress(p: ProgressState): string {
  const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
  const percent = Math.floor(fraction * 100);
  const left = fraction > 0 && fraction < 1 ? `, about ${eta((p.elapsedMs / fraction) * (1 - fraction))} left` : "";
  const text = `${p.label} ${String(percent).padStart(3)}% (${size(p.done)} of ${size(p.total)})${left}`;
  if (!p.bar) return text;
  const width = 24;
  const filled = Math.round(fraction * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${text}`;
}

/** A byte-progress callback for one file; `io.progress` throttles and places the line. */
export function byteProgress(io: Io, label: string, bar = process.stderr.isTTY === true): (done: number, total: number) => void {
  const started = Date.now();
  return (done, total) => io.progress(formatProgress({ label, done, total, elapsedMs: Date.now() - started, bar }));
}
