import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

// `relaytrace replay` reads the recording in one pass that keeps where each call's lines are, and
// reads a call's request and reply again when it is served: a child with a small heap (HEAP_MB)
// replays, strictly, a recording several times that size.

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
// As in diff-bounded-memory.test.ts: the CLI's modules take ~18 MB of 64.
const HEAP_MB = 64;
const CALLS = 1600;
const scratch = useScratchTmpdir("relaytrace-replay-memory-");

/** Call i's request: one user message of ~32 KB, its own (no two calls share a text). */
function requestOf(i: number) {
  return { model: "m", messages: [{ role: "user", content: `${i}:` + "q".repeat(32 * 1024) }] };
}

/** Call i's answer: ~128 KB of text. */
function answerOf(i: number): string {
  return `${i}:` + "a".repeat(128 * 1024);
}

async function writeRecording(path: string): Promise<void> {
  const out = createWriteStream(path);
  const at = (us: number) => new Date(Date.UTC(2026, 0, 1) + us / 1000).toISOString().replace("Z", "000Z");
  for (let i = 0; i < CALLS; i++) {
    const base = {
      atof_version: "0.1",
      uuid: `u-${i}`,
      parent_uuid: null,
      name: "openai.chat_completions",
      attributes: [],
      category: "llm",
    };
    const schema = { data_schema: { name: "openai/chat-completions", version: "1" }, category_profile: null, metadata: null };
    const start = { kind: "scope", scope_category: "start", ...base, timestamp: at(i * 10), ...schema, data: { content: requestOf(i) } };
    const reply = {
      id: `r-${i}`,
      object: "chat.completion",
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: answerOf(i) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    };
    const end = { kind: "scope", scope_category: "end", ...base, timestamp: at(i * 10 + 5), ...schema, data: reply };
    if (!out.write(JSON.stringify(start) + "\n" + JSON.stringify(end) + "\n")) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** The reply's text, from a JSON body or from the server-sent events of a stream. */
async function replyText(res: Response, stream: boolean): Promise<string> {
  if (!stream) return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  let text = "";
  for (const block of (await res.text()).split("\n\n")) {
    const data = block.startsWith("data: ") ? block.slice(6) : "";
    if (data === "" || data === "[DONE]") continue;
    text += (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "";
  }
  return text;
}

describe("relaytrace replay in bounded memory", () => {
  it("replays strictly, JSON and streamed, a recording several times its heap, then exits 0", { timeout: 180_000 }, async () => {
    const file = join(scratch.dir, "large.jsonl");
    await writeRecording(file);
    expect((await stat(file)).size).toBeGreaterThan(3 * HEAP_MB * 1024 * 1024);

    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, "replay", file], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    while (!stdout.includes("\n")) {
      const ended = await Promise.race([once(child.stdout, "data"), exited.then(() => "exited" as const)]);
      if (ended === "exited") throw new Error(`replay exited before its first line: ${stderr}`);
    }
    const match = /^replaying (\d+) calls on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
    expect(match, stdout).not.toBeNull();
    expect(Number(match![1])).toBe(CALLS);

    let wrong = 0;
    for (let i = 0; i < CALLS; i++) {
      // A few stream: the codec rebuilds a 128 KB reply as thousands of events, slow to read here.
      const stream = i % 200 === 1;
      const res = await fetch(`${match![2]}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...requestOf(i), stream }),
      });
      if (res.status !== 200 || (await replyText(res, stream)) !== answerOf(i)) wrong++;
    }
    expect(wrong).toBe(0);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
    expect(stdout.trim().split("\n").at(-1)).toBe(`replay stopped by SIGINT: served ${CALLS} of ${CALLS} calls, 0 mismatches`);
  });
});
