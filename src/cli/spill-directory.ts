import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Directories in use by this process, removed on exit and on a terminating signal. */
const live = new Set<string>();
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

function removeAll(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

/** Removes the directories, then lets the signal do what it would have done without us (end the process). */
function onSignal(signal: NodeJS.Signals): void {
  removeAll();
  uninstall();
  process.kill(process.pid, signal);
}

function install(): void {
  process.on("exit", removeAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.off("exit", removeAll);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/**
 * A private scratch directory under `os.tmpdir()` (mode 0700, as `mkdtemp` creates it) for sort
 * runs and copies of piped input. Removed by `remove()`, and also if the process exits or is
 * interrupted first, so a crashed or cancelled command leaves no copy of the trace's payloads behind.
 */
export class SpillDirectory {
  readonly path: string;
  private files = 0;

  constructor(prefix = "relaytrace-sort-") {
    this.path = mkdtempSync(join(tmpdir(), prefix));
    if (live.size === 0) install();
    live.add(this.path);
  }

  /** A fresh file name inside the directory: `<stem>-<n><extension>`. */
  nextFile(stem = "run", extension = ".jsonl"): string {
    return join(this.path, `${stem}-${this.files++}${extension}`);
  }

  remove(): void {
    if (!live.delete(this.path)) return;
    rmSync(this.path, { recursive: true, force: true });
    if (live.size === 0) uninstall();
  }
}
