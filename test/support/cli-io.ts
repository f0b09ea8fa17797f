import type { Io } from "../../src/cli/commands.js";

/** An in-process CLI `Io` that keeps what each stream received, line by line. */
export function captureIo(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), progress: () => undefined };
}
