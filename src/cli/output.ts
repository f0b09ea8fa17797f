import { closeSync, openSync, writeSync } from "node:fs";
import { describeWriteError, type Io } from "./io.js";
import { InputError } from "./input.js";

/** Where a command's result goes, written piece by piece so a large result is never one string. */
export interface TextOutput {
  write(text: string): void;
  /** Resolves once what was written has been taken (a slow stdout reader holds the command back here). */
  drained(): Promise<void>;
  close(): void;
}

const DONE = Promise.resolve();

/** `-o FILE` (created or truncated, written synchronously) or, without a path, `io.out` line by line. */
export function openOutput(io: Io, path: string | undefined): TextOutput {
  if (path === undefined) {
    let partial = "";
    return {
      write(text) {
        const lines = (partial + text).split("\n");
        partial = lines.pop()!;
        for (const line of lines) io.out(line);
      },
      drained: () => io.drained?.() ?? DONE,
      close() {
        if (partial !== "") io.out(partial);
        partial = "";
      },
    };
  }
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (error) {
    throw new InputError(`cannot write ${path}: ${describeWriteError(error)}`);
  }
  return {
    write(text) {
      const bytes = Buffer.from(text, "utf8");
      try {
        for (let at = 0; at < bytes.length;) {
          const written = writeSync(fd, bytes, at, bytes.length - at);
          if (written <= 0) throw new Error("the file accepted no bytes");
          at += written;
        }
      } catch (error) {
        throw new InputError(`cannot write ${path}: ${describeWriteError(error)}`);
      }
    },
    drained: () => DONE, // written synchronously
    close() {
      closeSync(fd);
    },
  };
}
