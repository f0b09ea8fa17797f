import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

// `relaytrace diff` reads both recordings as streams, lines their steps up within a bounded window
// and spills its --json changes: a child with a small heap (HEAP_MB) compares recordings several
// times that size.

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
// 64 MB: the CLI's own modules take ~18 MB of it and a large-string workload leaves garbage the
// collector reaches late, so 32 MB ran out on Node 22 and 24 although the diff itself keeps ~2 MB
// live; the recordings stay several times the heap, so output that piled up would still fail.
const HEAP_MB = 64;
const CALLS = 1600;
const scratch = useScratchTmpdir("relaytrace-diff-memory-");

/** A recording of `calls` model calls, each answering ~128 KB of text (`answer(i)`), with an extra call before call `extraAt`. */
async function writeRecording(path: string, calls: number, answer: (i: number) => string, extraAt = -1): Promise<void> {
  const out = createWriteStream(path);
  const at = (us: number) => new Date(Date.UTC(2026, 0, 1) + us / 1000).toISOString().replace("Z", "000Z");
  for (let n = 0; n < calls + (extraAt >= 0 ? 1 : 0); n++) {
    const extra = n === extraAt;
    const i = extraAt >= 0 && n > extraAt ? n - 1 : n;
    const base = {
      atof_version: "0.1",
      uuid: extra ? "u-extra" : `u-${i}`,
      parent_uuid: null,
      name: "openai.chat_completions",
      attributes: [],
      category: "llm",
    };
    const schema = { data_schema: { name: "openai/chat-completions", version: "1" }, category_profile: null };
    const start = {
      kind: "scope",
      scope_category: "start",
      ...base,
      timestamp: at(n * 10),
      ...schema,
      data: { content: { messages: [] } },
    };
    const text = extra ? "an extra model call" : answer(i);
    const reply = { choices: [{ message: { role: "assistant", content: text } }], usage: { prompt_tokens: 5, completion_tokens: 5 } };
    const end = { kind: "scope", scope_category: "end", ...base, timestamp: at(n * 10 + 5), ...schema, data: reply, metadata: null };
    if (!out.write(JSON.stringify({ ...start, metadata: null }) + "\n" + JSON.stringify(end) + "\n")) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

function diffWithSmallHeap(
  args: string[],
): Promise<{ code: number | null; stdoutBytes: number; lines: number; tail: string; stderr: string }> {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, "diff", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdoutBytes = 0;
  let lines = 0;
  let tail = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdoutBytes += c.length;
    for (const byte of c) if (byte === 10) lines++;
    tail = (tail + c.toString()).slice(-300);
  });
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdoutBytes, lines, tail, stderr })));
}

describe("relaytrace diff in bounded memory", () => {
  it("compares recordings several times its heap, and lists changes that outweigh it with --json", { timeout: 120_000 }, async () => {
    const a = join(scratch.dir, "a.jsonl");
    const b = join(scratch.dir, "b.jsonl");
    await writeRecording(a, CALLS, (i) => `${i}:` + "a".repeat(128 * 1024));
    await writeRecording(b, CALLS, (i) => `${i}:` + "b".repeat(128 * 1024));
    expect((await stat(a)).size).toBeGreaterThan(3 * HEAP_MB * 1024 * 1024);

    const same = await diffWithSmallHeap([a, a]);
    expect(same.stderr).toBe("");
    expect(same.code).toBe(0);
    expect(same.tail).toMatch(new RegExp(`equivalent: model calls ${CALLS} → ${CALLS}`));

    const changed = await diffWithSmallHeap([a, b, "--json"]);
    expect(changed.stderr).toBe("");
    expect(changed.code).toBe(1);
    expect(changed.stdoutBytes).toBeGreaterThan(2 * CALLS * 128 * 1024);
    // The opening line, one line per change (each model output changed), the closing line.
    expect(changed.lines).toBe(CALLS + 2);
    expect(changed.tail).toMatch(/bbbb"\}\n\]\}\n$/);

    // One extra model call early in a run of this size: lined up within the window, it is one change.
    const inserted = join(scratch.dir, "inserted.jsonl");
    await writeRecording(inserted, CALLS, (i) => `${i}:` + "a".repeat(128 * 1024), 10);
    const one = await diffWithSmallHeap([a, inserted, "--json"]);
    expect(one.stderr).toBe("");
    expect(one.code).toBe(1);
    expect(one.lines).toBe(3);
    // (These hand-written ends record no status: UNSET.)
    expect(one.tail).toContain('{"kind":"status_changed","step":11,"a":null,"b":"UNSET","call":{"output":"an extra model call"');
  });
});
