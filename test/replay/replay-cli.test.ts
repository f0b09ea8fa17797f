import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { startNode, waitForOutput, type Child } from "../support/child-process.js";
import { recordRun, weatherTool, WEATHER_TURNS } from "../support/recorded-run.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

// `relaytrace replay FILE` as a user runs it: a child process, its first line read for the URL,
// the real `openai` client against it, stopped by a signal.

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const scratch = useScratchTmpdir("relaytrace-replay-cli-");

async function recordingFile(name: string, events: readonly AtofEvent[], tail = ""): Promise<string> {
  const path = join(scratch.dir, name);
  await writeFile(path, events.map((e) => JSON.stringify(e)).join("\n") + "\n" + tail);
  return path;
}

/** Starts `relaytrace replay`, resolving once its first line names the URL. */
async function startReplay(args: string[]): Promise<{ child: Child; url: string; calls: number }> {
  const child = startNode(CLI, ["replay", ...args]);
  await waitForOutput(child, "\n");
  const first = child.stdout().split("\n")[0]!;
  const match = /^replaying (\d+) calls on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  expect(match, first).not.toBeNull();
  return { child, url: match![2]!, calls: Number(match![1]) };
}

/** The request bodies the loop sent, as recorded. */
function recordedRequests(events: readonly AtofEvent[]): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming[] {
  return events
    .filter((e): e is ScopeEvent => e.kind === "scope" && e.category === "llm" && e.scope_category === "start")
    .map((e) => (e.data as { content: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming }).content);
}

describe("relaytrace replay", () => {
  it("serves the openai client every recorded call (JSON and streamed), then exits 0 on SIGINT with a summary", async () => {
    const recorded = await recordRun("openai");
    const file = await recordingFile("run.jsonl", recorded.events);
    const { child, url, calls } = await startReplay([file]);
    expect(calls).toBe(2);
    const openai = new OpenAI({ baseURL: url, apiKey: "k", maxRetries: 0 });
    const [first, second] = recordedRequests(recorded.events);
    const reply = await openai.chat.completions.create(first!);
    expect(reply.choices[0]!.message.tool_calls?.[0]).toMatchObject({ id: "call_1", function: { name: "get_weather" } });
    const stream = await openai.chat.completions.create({ ...second!, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(recorded.text);
    child.process.kill("SIGINT");
    const { code, signal } = await child.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(child.stdout().trim().split("\n").at(-1)).toBe("replay stopped by SIGINT: served 2 of 2 calls, 0 mismatches");
  });

  it("exits 1 on SIGTERM when a call was not served or did not match, naming the mismatch", async () => {
    const recorded = await recordRun("openai");
    const file = await recordingFile("run.jsonl", recorded.events);
    const { child, url } = await startReplay([file]);
    const openai = new OpenAI({ baseURL: url, apiKey: "k", maxRetries: 0 });
    const [first] = recordedRequests(recorded.events);
    const changed = { ...first!, messages: [first!.messages[0]!, { role: "user" as const, content: "Weather in Bergen?" }] };
    const error = await openai.chat.completions.create(changed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(409);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: "replay_mismatch",
      call: 0,
      path: "/messages/1/content",
      expected: "Weather in Oslo?",
      actual: "Weather in Bergen?",
    });
    child.process.kill("SIGTERM");
    const { code, signal } = await child.exited;
    expect({ code, signal }).toEqual({ code: 1, signal: null });
    expect(child.stdout()).toContain("served 0 of 2 calls, 1 mismatches (incomplete)");
    expect(child.stderr()).toContain("call 0 does not match the recording at /messages/1/content");
  });

  it("with --loose answers by order and exits 0 once every call was served", async () => {
    const recorded = await recordRun("openai");
    const file = await recordingFile("run.jsonl", recorded.events);
    const { child, url } = await startReplay([file, "--loose"]);
    const client = createClient({ baseUrl: url, style: "openai", model: "m-1", apiKey: "k" });
    const result = await client.run("Something else entirely", { toolkit: await createToolkit({ tools: [weatherTool({ count: 0 })] }) });
    expect(result.text).toBe(recorded.text);
    child.process.kill("SIGINT");
    expect((await child.exited).code).toBe(0);

    // --loose still wants every call served: one of two is exit status 1.
    const half = await startReplay([file, "--loose"]);
    const openai = new OpenAI({ baseURL: half.url, apiKey: "k", maxRetries: 0 });
    await openai.chat.completions.create({ model: "m-1", messages: [{ role: "user", content: "anything" }] });
    half.child.process.kill("SIGTERM");
    expect((await half.child.exited).code).toBe(1);
    expect(half.child.stdout()).toContain("replay stopped by SIGTERM: served 1 of 2 calls, 0 mismatches (incomplete)");
  });

  it("exits 2 before the replaying line when responses were withheld by a sanitizer, or the file is unreadable", async () => {
    const provider = await startScriptedProvider({ turns: WEATHER_TURNS });
    const rt = createRuntime();
    const events: AtofEvent[] = [];
    rt.subscribe("capture", (e) => void events.push(e));
    rt.registerLlmSanitizeResponse("withhold", 0, () => null);
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m-1", apiKey: "k", runtime: rt });
    await client.run("Weather in Oslo?", { toolkit: await createToolkit({ tools: [weatherTool({ count: 0 })] }) });
    await rt.flush();
    await provider.close();
    const withheld = startNode(CLI, ["replay", await recordingFile("withheld.jsonl", events)]);
    expect((await withheld.exited).code).toBe(2);
    expect(withheld.stdout()).toBe("");
    expect(withheld.stderr()).toMatch(/responses\/content are missing/);

    const missing = startNode(CLI, ["replay", join(scratch.dir, "no-such-file.jsonl")]);
    expect((await missing.exited).code).toBe(2);
    expect(missing.stdout()).toBe("");
    expect(missing.stderr()).toMatch(/no-such-file\.jsonl/);
  });

  it("reads a hostile recording like every other command: a torn last line is a warning, a bad line an error", async () => {
    const recorded = await recordRun("openai");
    const torn = await recordingFile("torn.jsonl", recorded.events, '{"kind":"scope","scope_category":"start","na');
    const { child } = await startReplay([torn]);
    child.process.kill("SIGINT");
    expect((await child.exited).code).toBe(1);
    expect(child.stderr()).toMatch(/torn\.jsonl:\d+: .*warning|warning: .*torn\.jsonl/);

    const lines = recorded.events.map((e) => JSON.stringify(e));
    lines.splice(2, 0, "not json at all \u001b[2J");
    const bad = join(scratch.dir, "bad.jsonl");
    await writeFile(bad, lines.join("\n") + "\n");
    const badRun = startNode(CLI, ["replay", bad]);
    expect((await badRun.exited).code).toBe(2);
    expect(badRun.stderr()).toMatch(/bad\.jsonl: ATOF line 3: not valid JSON/);
    expect(badRun.stderr()).not.toContain("\u001b");

    // Names with terminal escapes, a reply of no known shape and a failure with an impossible status.
    const hostile = recorded.events.map((e) => {
      if (e.kind !== "scope" || e.category !== "llm") return e;
      const named = { ...e, name: "openai.chat_completions\u001b]0;owned\u0007" } as ScopeEvent;
      return e.scope_category === "end" ? { ...named, data: { choices: "\u001b[2J" } } : named;
    });
    const escapes = startNode(CLI, ["replay", await recordingFile("escapes.jsonl", hostile)]);
    expect((await escapes.exited).code).toBe(2);
    expect(escapes.stdout()).toBe("");
    expect(escapes.stderr()).toMatch(/responses\/content are missing.*call 0 \(openai\.chat_completions\\x1b\]0;owned\\x07\)/);
    expect(escapes.stderr()).not.toContain("\u001b");
    expect(escapes.stderr()).not.toContain("\u0007");
  });

  it("listens on --port N, and exits 2 with a clear line for a port in use or not a port", async () => {
    const recorded = await recordRun("gemini");
    const file = await recordingFile("run.jsonl", recorded.events);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const busy = startNode(CLI, ["replay", file, "--port", String(port)]);
      expect((await busy.exited).code).toBe(2);
      expect(busy.stderr()).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
    const { child, url } = await startReplay([file, "--port", String(port)]);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    child.process.kill("SIGINT");
    expect((await child.exited).code).toBe(1);
    const bad = startNode(CLI, ["replay", file, "--port", "http"]);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toContain('--port must be a port number 0-65535 (got "http")');
  });

  it("replays a recording piped to standard input (read on demand from its copy), and ends with an exit status on SIGINT", async () => {
    const recorded = await recordRun("openai");
    const child = spawn(process.execPath, [CLI, "replay", "-"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    child.stdin.end(recorded.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    await new Promise<void>((resolve) => {
      const check = () => out.includes("\n") && resolve();
      child.stdout.on("data", check);
      check();
    });
    const url = /^replaying 2 calls on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)?.[1];
    expect(url, out).toBeDefined();
    // The scratch copy of the piped recording is gone by now; the replay reads its open file.
    const openai = new OpenAI({ baseURL: url!, apiKey: "k", maxRetries: 0 });
    const reply = await openai.chat.completions.create(recordedRequests(recorded.events)[0]!);
    expect(reply.choices[0]!.message.tool_calls?.[0]).toMatchObject({ id: "call_1" });
    child.kill("SIGINT");
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(out).toContain("served 1 of 2 calls");
  });
});
