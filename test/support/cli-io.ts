import type { Io } from "../../src/cli/io.js";

export interface CapturedIo extends Io {
  stdout: string[];
  stderr: string[];
  progressLines: string[];
}

/** An in-process CLI `Io` that keeps what each stream received, line by line (progress too). */
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

/** The same, under the name the convert tests use. */
export const captureIo = capturedIo;
