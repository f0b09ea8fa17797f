// `relaytrace serve [DIR] [--port N] [--host H]` as a user runs it: a child process, its first
// line read for the URL, the page and the runs asked for over HTTP, stopped by a signal.
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { request } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { RunsAnswer } from "../../src/cli/dashboard/model.js";
import type { Child } from "../support/child-process.js";
import { appendRuns, recordAgentRun } from "../support/dashboard-runs.js";
import { writeLargeAtof } from "../support/large-atof.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-serve-cli-");

const started: Child[] = [];
afterEach(() => {
  // A failed test leaves its server running: stopped here, so the next test starts clean.
  for (const child of started.splice(0)) if (child.process.exitCode === null) child.process.kill("SIGKILL");
});

/** `relaytrace serve ARGS` in `cwd`, with piped output. */
function startServe(args: string[], cwd?: string): Child {
  const child = spawn(process.execPath, [CLI, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"], ...(cwd ? { cwd } : {}) });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  const handle = { process: child, stdout: () => out, stderr: () => err, exited };
  started.push(handle);
  return handle;
}

/** The runs once the index has read the directory (asked again until it says so, at most 10 s). */
async function readyRuns(url: string): Promise<RunsAnswer> {
  for (const deadline = Date.now() + 10_000; ;) {
    const answer = JSON.parse((await get(url, "/api/runs")).body) as RunsAnswer;
    if (answer.ready || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first line, once printed (rejects when the child exits first). */
function firstLine(child: Child): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const out = child.stdout();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    };
    child.process.stdout!.on("data", check);
    check();
    void child.exited.then(({ code }) => reject(new Error(`serve exited (${code}) before its first line: ${child.stderr()}`)));
  });
}

/** A GET with the Host header set by hand (fetch would not let a test send a foreign one). */
function get(url: string, path: string, host?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path, headers: { host: host ?? target.host } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function runDir(name: string): Promise<string> {
  const dir = join(scratch.dir, name);
  await mkdir(dir, { recursive: true });
  await appendRuns(join(dir, "run.jsonl"), await recordAgentRun({ sessionId: "s-1", userId: "ana" }));
  return dir;
}

describe("relaytrace serve", () => {
  it("prints its URL first (127.0.0.1, a port the OS picked), serves the page and the runs, and exits 0 on SIGINT", async () => {
    const dir = await runDir("sigint");
    const child = startServe([dir]);
    const line = await firstLine(child);
    const match = /^relaytrace dashboard on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
    expect(match, line).not.toBeNull();
    expect(Number(match![2])).toBeGreaterThan(0);
    const url = match![1]!;
    const page = await get(url, "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/);
    // Everything the page loads comes from this server: no CDN, no other origin.
    expect(page.body.match(/(?:src|href)="[^"]*"/g)).toEqual(['href="data:,"', 'href="/dashboard.css"', 'src="/dashboard.js"']);
    expect((await get(url, "/dashboard.js")).status).toBe(200);
    const runs = await readyRuns(url);
    expect(runs.runs.map((r) => [r.name, r.sessionId, r.userId, r.status])).toEqual([["weather-agent", "s-1", "ana", "ok"]]);
    child.process.kill("SIGINT");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stderr()).toBe("relaytrace dashboard stopped by SIGINT\n");
  });

  it("listens on --port and --host as asked and exits 0 on SIGTERM", async () => {
    const dir = await runDir("sigterm");
    const port = await freePort();
    const child = startServe([dir, "--port", String(port), "--host", "127.0.0.2"]);
    expect(await firstLine(child)).toBe(`relaytrace dashboard on http://127.0.0.2:${port}`);
    expect((await get(`http://127.0.0.2:${port}`, "/api/runs")).status).toBe(200);
    child.process.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });

  it("exits 0 on a signal that comes while it is still reading the directory", async () => {
    // 60 MB: the first pass over it is still running when the signal, sent on the first line, arrives.
    const dir = join(scratch.dir, "large");
    await mkdir(dir);
    await writeLargeAtof(join(dir, "big.jsonl"), { runs: 300, children: 50, payloadBytes: 2000 });
    const child = startServe([dir]);
    await firstLine(child);
    child.process.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });

  it("reads ./relaytrace-out when no DIR is given", async () => {
    const cwd = join(scratch.dir, "default");
    await runDir(join("default", "relaytrace-out"));
    const child = startServe([], cwd);
    const url = (await firstLine(child)).split(" ").pop()!;
    const runs = await readyRuns(url);
    expect(runs.dir).toBe("relaytrace-out");
    expect(runs.runs).toHaveLength(1);
    child.process.kill("SIGINT");
    expect((await child.exited).code).toBe(0);
  });

  it("answers only requests that name it in their Host header (DNS rebinding)", async () => {
    const dir = await runDir("hosts");
    const child = startServe([dir]);
    const url = (await firstLine(child)).split(" ").pop()!;
    const port = new URL(url).port;
    expect((await get(url, "/api/runs", `localhost:${port}`)).status).toBe(200);
    for (const host of [`attacker.example:${port}`, "127.0.0.1", `127.0.0.1:${Number(port) + 1}`]) {
      const refused = await get(url, "/api/runs", host);
      expect(refused.status, host).toBe(421);
      expect(refused.body).not.toContain("weather-agent");
    }
    child.process.kill("SIGINT");
    expect((await child.exited).code).toBe(0);
  });

  it("exits 2 with one line for a missing directory, a file, or bad options", async () => {
    const file = join(await runDir("file"), "run.jsonl");
    for (const [args, message] of [
      [[join(scratch.dir, "nope")], /: no such directory\n$/],
      [[file], /run\.jsonl: not a directory \(serve reads a directory of ATOF files\)\n$/],
      [["--port", "http"], /--port must be a port number 0-65535 \(got "http"\)\n$/],
      [["a", "b"], /serve takes one DIR \(got 2\)\n$/],
    ] as const) {
      const child = startServe([...args]);
      expect((await child.exited).code).toBe(2);
      expect(child.stdout()).toBe("");
      expect(child.stderr()).toMatch(message);
    }
  });

  it("--help explains the command", async () => {
    const child = startServe(["--help"]);
    expect((await child.exited).code).toBe(0);
    expect(child.stdout()).toMatch(/^Usage: relaytrace serve \[DIR\] \[--port N\] \[--host H\]\n/);
  });
});
