import { spawn } from "node:child_process";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runDemo } from "../../src/cli/demo-scenario.js";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";

const MAIN = resolve("dist/src/cli/main.js");
const ANSWER_BYTES = 200 * 1024 * 1024;

let work: string;
let atof: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-send-bounds-"));
  atof = (await runDemo({ outDir: join(work, "demo"), projection: "full" })).atofPath;
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A loopback receiver that reads each request whole, then answers 200 through `answer`; counts requests. */
async function receiver(answer: (res: ServerResponse) => void): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      res.writeHead(200, { "content-type": "application/json" });
      answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, requests: () => requests };
}

/** Streams `total` bytes of JSON-ish filler, 64 KiB at a time, waiting for the reader (never allocated at once). */
function streamFiller(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** Runs `relaytrace send` in a child node process; it reports its exit code, stderr lines and how much its RSS grew at the peak. */
function sendInChild(args: string[]): Promise<{ code: number; stderr: string[]; peakGrowth: number }> {
  const script = `
    const { main } = await import(${JSON.stringify(MAIN)});
    const stderr = [];
    const io = { out: () => {}, err: (l) => stderr.push(l), progress: () => {} };
    // main loads a command's module when it first runs: load send's now, so the growth measured is the answer's, not the code's.
    await main(["send", "--help"], { out: () => {}, err: () => {}, progress: () => {} });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const code = await main(${JSON.stringify(["send", ...args])}, io);
    const peak = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(JSON.stringify({ code, stderr, peakGrowth: peak - before }));
  `;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", fail);
    child.on("exit", () => {
      try {
        done(JSON.parse(out) as { code: number; stderr: string[]; peakGrowth: number });
      } catch (error) {
        fail(new Error(`the child printed no result: ${out}`, { cause: error }));
      }
    });
  });
}

describe("relaytrace send: every answer is bounded in size and every request in time", () => {
  it("a collector answering 200 MB: the answer is cut at --max-answer-bytes, RSS grows by far less than the answer, and it says so", async () => {
    const c = await receiver((res) => streamFiller(res, ANSWER_BYTES));
    const result = await sendInChild([atof, "--otlp", c.url]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("relaytrace: warning: an answer of the collector was longer than 1048576 bytes: not read further");
    expect(result.stderr.at(-1)).toMatch(/^sent \d+ spans to .*: \d+ accepted$/);
    expect(result.peakGrowth).toBeLessThan(ANSWER_BYTES / 4);
  }, 60_000);

  it("a collector trickling its answer a byte at a time: each request ends at --request-timeout and is not sent again", async () => {
    const c = await receiver((res) => {
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 20);
      res.on("close", () => clearInterval(drip));
    });
    const io = capturedIo();
    expect(await main(["send", atof, "--otlp", c.url, "--request-timeout", "300"], io)).toBe(0);
    expect(io.stderr).toContain("relaytrace: warning: an answer of the collector was not finished within 300 ms: not read further");
    const sent = /^sent (\d+) spans/.exec(io.stderr.at(-1)!);
    expect(sent).not.toBeNull();
    const prompt = await receiver((res) => res.end("{}"));
    expect(await main(["send", atof, "--otlp", prompt.url], capturedIo())).toBe(0);
    expect(c.requests()).toBe(prompt.requests());
  }, 60_000);

  it("the bounds are options with their defaults in --help; a bad value is a usage error", async () => {
    const help = capturedIo();
    expect(await main(["send", "--help"], help)).toBe(0);
    expect(help.stdout.join("\n")).toMatch(/--request-timeout MS .*\(default 30000\)/);
    expect(help.stdout.join("\n")).toMatch(/--max-answer-bytes N .*\(default 1048576\)/);
    const bad = capturedIo();
    expect(await main(["send", atof, "--otlp", "http://127.0.0.1:9/v1/traces", "--request-timeout", "soon"], bad)).toBe(2);
    expect(bad.stderr.join("\n")).toMatch(/--request-timeout must be a positive whole number/);
  });
});
