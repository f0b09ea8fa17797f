import { spawn, type ChildProcess } from "node:child_process";

/** A real program started for a test: its output is kept for the failure message. */
export interface RunningProgram {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr interleaved), last 64 KiB. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const KEEP = 64 * 1024;

export function startProgram(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): RunningProgram {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const keep = (chunk: Buffer) => {
    log += chunk.toString("utf8");
    if (log.length > KEEP) log = log.slice(-KEEP);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    name,
    child,
    output: () => log,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` until it resolves true; fails with the program's output when the program
 * exits first or `timeoutMs` passes (a program that cannot start says why in its log).
 */
export async function waitUntil(program: RunningProgram, what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (program.child.exitCode !== null) {
      throw new Error(`${program.name} exited (code ${program.child.exitCode}) before ${what}:\n${program.output()}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${program.name}: ${what} not reached in ${timeoutMs} ms:\n${program.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** True when `url` answers with a 2xx status. */
export async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await response.body?.cancel();
  return response.ok;
}

/** Polls `read` until `accept` holds for its value; returns that value or throws the last one seen. */
export async function eventually<T>(what: string, read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await read();
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not seen within ${timeoutMs} ms; last value: ${JSON.stringify(last)?.slice(0, 2000)}${lastError ? `; last error: ${String(lastError)}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}
