import { spawn, type ChildProcess } from "node:child_process";

export interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code and signal, once the output is complete. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Where and how a child runs: Node's own flags (`--import ...`, `--max-old-space-size=64`), its working directory, its environment. */
export interface NodeLaunch {
  nodeArgs?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts `node [...nodeArgs] script ...args` with piped output; a plain array is Node's own flags. */
export function startNode(script: string, args: string[], how: NodeLaunch | string[] = {}): Child {
  const launch: NodeLaunch = Array.isArray(how) ? { nodeArgs: how } : how;
  const child = spawn(process.execPath, [...(launch.nodeArgs ?? []), script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    ...(launch.env === undefined ? {} : { env: launch.env }),
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  // "close", not "exit": it comes once the output streams have ended too, so stdout() and stderr() are complete.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves once the child prints `text`; rejects if it exits first. */
export function waitForOutput(child: Child, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (child.stdout().includes(text)) resolve();
    };
    child.process.stdout!.on("data", check);
    check();
    void child.exited.then(({ code }) => reject(new Error(`child exited (${code}) before "${text}": ${child.stderr()}`)));
  });
}
