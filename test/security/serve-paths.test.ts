// `relaytrace serve DIR` reads only files under DIR: against the real server (the built command in
// a child process), requests that climb out (`..`, encoded `..`, absolute paths, backslashes, NUL)
// and links that lead out are refused, and what lies outside never reaches an answer or the index.
import { spawn } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunsAnswer } from "../../src/cli/dashboard/model.js";
import { appendRuns, recordAgentRun } from "../support/dashboard-runs.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-serve-paths-");
const SECRET = "SECRET-SESSION-7f3a";

let url = "";
let stop: () => Promise<number | null> = async () => null;

/** A GET with the path exactly as written (no client normalizes `..` away). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path, headers: { host: target.host } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  const dir = join(scratch.dir, "runs");
  await mkdir(join(dir, "sub"), { recursive: true });
  await appendRuns(join(dir, "run.jsonl"), await recordAgentRun({ sessionId: "inside" }));
  // Beside DIR, not in it: a run nobody asked to show, and links in DIR that lead to it.
  await appendRuns(join(scratch.dir, "secret.jsonl"), await recordAgentRun({ sessionId: SECRET }));
  await writeFile(join(scratch.dir, "passwd"), `${SECRET}\n`);
  await symlink(join(scratch.dir, "secret.jsonl"), join(dir, "link-out.jsonl"));
  await symlink("../secret.jsonl", join(dir, "relative-out.jsonl"));
  await symlink(join(dir, "run.jsonl"), join(dir, "link-in.jsonl"));
  const child = spawn(process.execPath, [CLI, "serve", dir], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}`)));
  });
  url = out.split("\n")[0]!.split(" ").pop()!;
  stop = async () => {
    child.kill("SIGTERM");
    return exited;
  };
  // The index has read the directory once.
  for (let tries = 0; !(JSON.parse((await rawGet("/api/runs")).body) as RunsAnswer).ready && tries < 200; tries++)
    await new Promise((r) => setTimeout(r, 50));
});

afterAll(async () => {
  expect(await stop()).toBe(0);
});

describe("relaytrace serve reads only files under its directory", () => {
  it("serves a file of the directory, and one linked from inside it", async () => {
    for (const name of ["run.jsonl", "link-in.jsonl"]) {
      const answer = await rawGet(`/files/${name}`);
      expect(answer.status, name).toBe(200);
      expect(answer.body).toContain('"session_id":"inside"');
    }
  });

  it.each([
    "/files/../secret.jsonl",
    "/files/..%2Fsecret.jsonl",
    "/files/%2e%2e%2fsecret.jsonl",
    "/files/%2E%2E%2Fsecret.jsonl",
    "/files/%2e%2e",
    "/files/..",
    "/files/%252e%252e%252fsecret.jsonl",
    "/files/..%5Csecret.jsonl",
    "/files/..\\secret.jsonl",
    "/files/sub%2F..%2F..%2Fsecret.jsonl",
    "/files/%2Fetc%2Fpasswd",
    "/files//etc/passwd",
    "/files/link-out.jsonl",
    "/files/relative-out.jsonl",
    "/files/run.jsonl%00.txt",
    "/files/sub",
    "/files/%E0%A4%A",
    "/../secret.jsonl",
    "/api/trace/..%2F..%2Fsecret.jsonl",
    "/api/compare?a=../secret.jsonl&b=run.jsonl",
  ])("refuses %s", async (path) => {
    const answer = await rawGet(path);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain(SECRET);
  });

  it("refuses an absolute path to a file outside", async () => {
    for (const path of [join(scratch.dir, "secret.jsonl"), join(scratch.dir, "passwd")]) {
      const answer = await rawGet(`/files/${encodeURIComponent(path)}`);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain(SECRET);
    }
  });

  it("indexes no file a link leads to outside the directory, and says it was not read", async () => {
    const runs = JSON.parse((await rawGet("/api/runs")).body) as RunsAnswer;
    expect(runs.runs.map((r) => [r.sessionId, r.spans])).toEqual([["inside", 4]]);
    expect(JSON.stringify(runs)).not.toContain(SECRET);
    expect(runs.files.map((f) => f.name)).toEqual(["run.jsonl"]);
    expect(runs.problems).toEqual([
      "not read: link-out.jsonl: a link that leads out of the directory",
      "not read: relative-out.jsonl: a link that leads out of the directory",
      "not read: link-in.jsonl: the same file as run.jsonl",
    ]);
  });

  it("answers nothing but GET", async () => {
    const target = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, path: "/api/runs", method: "POST" }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(405);
  });
});
