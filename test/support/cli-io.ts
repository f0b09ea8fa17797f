import type { Io } from "../../src/cli/commands.js";

export interface CapturedIo extends Io {
  stdout: string[];
  stderr: string[];
  progressLines: string[];
}

/** An Io that keeps what a command printed, for in-process CLI tests. */
export function capturedIo(): CapturedIo {
  const io: CapturedIo = {
    stdout: [],
    stderr: [],
    progressLines: [],
    out: (line) => void io.stdout.push(line),
    err: (line) => void io.stderr.push(line),
    progress: (line) => void io.progressLines.push(line),
  };
  return io;
}
