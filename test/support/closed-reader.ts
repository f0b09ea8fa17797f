import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";

/** How a child whose stdout was a pipe ended, and what went through it. */
export interface PipedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** what the reader read before it closed (empty when it never read) */
  read: string;
  stderr: string;
}

export interface PipedRunOptions {
  /** where the FIFO is made */
  dir: string;
  /**
   * `"none"`: the pipe has no reader before the child starts, so its first write fails.
   * `"first-line"`: the reader reads until it has the first line, then closes its end.
   */
  reader: "none" | "first-line";
  env?: NodeJS.ProcessEnv;
  /** called once the reader has closed its end (to make the child write again: a signal, say) */
  afterClose?: (child: ChildProcess) => void;
}

let fifos = 0;

/**
 * Runs `node ...args` with its stdout a real pipe (a FIFO) whose reader goes away, as
 * `relaytrace ... | head -1` does. Nothing here depends on timing: with `"none"` the reader is
 * gone before the child starts; with `"first-line"` the reader takes one read of the pipe
 * (at most the pipe's 64 KiB) and closes, so a child that prints more than twice that much
 * necessarily writes after the reader is gone.
 */
export async function runWithClosingReader(args: readonly string[], options: PipedRunOptions): Promise<PipedRun> {
  const fifo = join(options.dir, `stdout-${process.pid}-${fifos++}.fifo`);
  execFileSync("mkfifo", [fifo]);
  // The read end first (non-blocking, so the open returns at once); then the write end opens without waiting.
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  let reader: Socket | undefined;
  if (options.reader === "none") closeSync(readFd);
  else reader = new Socket({ fd: readFd, readable: true, writable: false });
  const child = spawn(process.execPath, [...args], { stdio: ["ignore", writeFd, "pipe"], env: options.env ?? process.env });
  closeSync(writeFd); // the child holds its own copy
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  let read = "";
  if (reader !== undefined) {
    const r = reader;
    await new Promise<void>((resolve) => {
      const close = () => {
        r.destroy(); // closes the read end at once: the pipe has no reader from here on
        resolve();
      };
      r.on("data", (chunk: Buffer) => {
        read += chunk.toString();
        if (read.includes("\n")) close();
      });
      r.on("end", close);
      r.on("error", close);
    });
  }
  if (options.afterClose) options.afterClose(child);
  const { code, signal } = await exited;
  return { code, signal, read, stderr };
}
