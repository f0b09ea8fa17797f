import { describeWriteError } from "./io.js";

/**
 * What the program does when its standard output or error fails. A reader that goes away
 * (`relaytrace diff A B | head`) is the common case: a Unix tool then ends at its next write
 * (SIGPIPE). Node ignores SIGPIPE and reports EPIPE as an `error` event on `process.stdout`,
 * which, unhandled, ends the process with a stack trace and status 1. Here the command ends at
 * once, quietly, with status 0: nobody wants the rest of its output. Scratch files go with the
 * process's `exit` handlers (see SpillDirectory). Any other failed write to stdout (a full
 * disk) is one line on stderr and status 2, as a failed `-o FILE` is. A failing stderr is
 * ignored: there is nowhere left to report to, and the command's result still goes to stdout.
 */
export function endQuietlyWhenOutputCloses(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    try {
      process.stderr.write(`relaytrace: cannot write to standard output: ${describeWriteError(error)}\n`);
    } finally {
      process.exit(2);
    }
  });
  process.stderr.on("error", () => undefined);
}
