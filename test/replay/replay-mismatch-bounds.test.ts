// Strict replay keeps a count of the requests that did not match and a bounded sample of them:
// a client that retries a mismatched request against a recording of long prompts must not make
// the server keep a copy of the prompt per retry.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startReplayServer } from "../../src/replay/index.js";
import { startNode, waitForOutput } from "../support/child-process.js";
import { writeModelCallRecording } from "../support/model-call-recording.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-replay-mismatches-");

/** A recording of one call whose prompt is `promptChars` long. */
async function longPromptRecording(name: string, promptChars: number): Promise<string> {
  const file = join(scratch.dir, name);
  await writeModelCallRecording(file, {
    calls: 1,
    request: () => ({ model: "m", messages: [{ role: "user", content: "p".repeat(promptChars) }] }),
    answer: () => "recorded answer",
  });
  return file;
}

/** One small request that does not match the recorded prompt. */
function postShortPrompt(url: string): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "short" }] }),
  });
}

describe("replay mismatches", () => {
  it("are counted, the first 100 kept with values cut to 4,096 characters; the 409 reply has them whole", async () => {
    const replay = await startReplayServer({ file: await longPromptRecording("long.jsonl", 100_000) });
    try {
      for (let i = 0; i < 150; i++) {
        const res = await postShortPrompt(replay.url);
        expect(res.status).toBe(409);
        const { error } = (await res.json()) as { error: { path: string; expected: string; actual: string } };
        expect([error.path, error.expected.length, error.actual]).toEqual(["/messages/0/content", 100_000, "short"]);
      }
      expect(replay.mismatchCount).toBe(150);
      expect(replay.mismatches).toHaveLength(100);
      const [first] = replay.mismatches;
      expect(first).toEqual({
        call: 0,
        path: "/messages/0/content",
        expected: "p".repeat(4096) + "… (100000 characters)",
        actual: "short",
        truncated: true,
      });
    } finally {
      await replay.close();
    }
  });

  it(
    "keep `relaytrace replay` within a 96 MB heap while a client retries a request against a 5 MB prompt",
    { timeout: 120_000 },
    async () => {
      const file = await longPromptRecording("five-mb.jsonl", 5 * 1024 * 1024);
      const child = startNode(CLI, ["replay", file], ["--max-old-space-size=96"]);
      await waitForOutput(child, "\n");
      const url = /on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(child.stdout())![1]!;
      const RETRIES = 40;
      for (let i = 0; i < RETRIES; i++) {
        const res = await postShortPrompt(url);
        expect(res.status).toBe(409);
        await res.arrayBuffer();
      }
      child.process.kill("SIGINT");
      const { code } = await child.exited;
      expect(child.stdout().trim().split("\n").at(-1)).toBe(
        `replay stopped by SIGINT: served 0 of 1 calls, ${RETRIES} mismatches (incomplete)`,
      );
      expect(code).toBe(1);
      expect(child.stderr().trim().split("\n")).toHaveLength(RETRIES);
    },
  );
});
