import { describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { replayTools } from "../../src/replay/index.js";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { recordRun, replayServers } from "../support/recorded-run.js";
import { DIALECT_NAMES } from "../support/wire-fixtures.js";

// A run recorded against the scripted provider replays through relaytrace's own loop, in every
// dialect, with the recorded tools: same answer, no tool side effects, nothing left unserved.

const replay = replayServers();

// The field of the first message that differs, in each dialect's own spelling.
const TRANSCRIPT_POINTER = {
  openai: "/messages/1/content",
  "openai-responses": "/input/0/content",
  anthropic: "/messages/0/content",
  gemini: "/contents/0/parts/0/text",
};

describe.each(DIALECT_NAMES)("replaying a %s recording through the loop", (style) => {
  it("answers every recorded call in order, as JSON and as a stream, with the recorded tool results", async () => {
    for (const stream of [false, true]) {
      const recorded = await recordRun(style, "Weather in Oslo?", undefined, { stream });
      const server = await replay({ events: recorded.events });
      expect(server.calls).toBe(2);
      const { rt, settle } = capturingRuntime();
      const client = createClient({ baseUrl: server.url, style, model: "m-1", apiKey: "k", systemPrompt: "Be brief.", runtime: rt });
      const toolkit = await createToolkit({ tools: replayTools(recorded.events) });
      const deltas: string[] = [];
      const result = await client.run("Weather in Oslo?", stream ? { toolkit, onText: (d) => deltas.push(d) } : { toolkit });
      expect(result.text).toBe(recorded.text);
      if (stream) expect(deltas.join("")).toBe(recorded.text);
      expect(result.toolCalls.map((c) => [c.name, c.args, c.output])).toEqual([
        ["get_weather", { city: "Oslo" }, '{"city":"Oslo","temp_c":4}'],
      ]);
      expect(server.served).toBe(2);
      expect(server.mismatches).toEqual([]);
      const tools = scopes(await settle()).filter((e: ScopeEvent) => e.category === "tool" && e.scope_category === "end");
      expect(tools.map((e) => e.metadata)).toEqual([expect.objectContaining({ "otel.status_code": "OK" })]);
    }
  });

  it("answers a request whose transcript differs with 409 and the first difference (strict), and by order with strict: false", async () => {
    const recorded = await recordRun(style);
    const server = await replay({ events: recorded.events });
    const client = createClient({ baseUrl: server.url, style, model: "m-1", apiKey: "k", systemPrompt: "Be brief.", retries: 0 });
    const toolkit = await createToolkit({ tools: replayTools(recorded.events) });
    await expect(client.run("Weather in Bergen?", { toolkit })).rejects.toThrow(/409[\s\S]*replay_mismatch/);
    expect(server.served).toBe(0);
    expect(server.mismatches).toHaveLength(1);
    const [mismatch] = server.mismatches;
    expect(mismatch).toMatchObject({ call: 0, path: TRANSCRIPT_POINTER[style] });
    expect([mismatch!.expected, mismatch!.actual]).toEqual(["Weather in Oslo?", "Weather in Bergen?"]);

    const loose = await replay({ events: recorded.events, strict: false });
    const looseClient = createClient({ baseUrl: loose.url, style, model: "m-1", apiKey: "k", systemPrompt: "Be brief." });
    const result = await looseClient.run("Weather in Bergen?", { toolkit: await createToolkit({ tools: replayTools(recorded.events) }) });
    expect(result.text).toBe(recorded.text);
    expect(loose.served).toBe(2);
  });
});

describe("the replay server", () => {
  it("answers a call after the last recorded one with 410", async () => {
    const recorded = await recordRun("openai");
    const server = await replay({ events: recorded.events, strict: false });
    const post = () =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m-1", messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    const third = await post();
    expect(third.status).toBe(410);
    expect(((await third.json()) as { error: { type: string } }).error.type).toBe("replay_exhausted");
    expect(server.served).toBe(2);
  });

  it("frees its port on close()", async () => {
    const recorded = await recordRun("anthropic");
    const server = await replay({ events: recorded.events });
    await server.close();
    await expect(fetch(`${server.url}/v1/messages`, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});

describe("replayTools", () => {
  it("answers recorded calls by name and arguments and gives an error result naming any unrecorded call", async () => {
    const recorded = await recordRun("openai");
    const toolkit = await createToolkit({ tools: replayTools(recorded.events) });
    expect(await toolkit.execute("get_weather", { city: "Oslo" })).toMatchObject({ output: '{"city":"Oslo","temp_c":4}', isError: false });
    const other = await toolkit.execute("get_weather", { city: "Bergen" });
    expect(other.isError).toBe(true);
    expect(other.output).toMatch(/get_weather.*not recorded/);
    expect(toolkit.tools.map((t) => [t.name, t.description, t.inputSchema])).toEqual([
      ["get_weather", "Current weather for a city", { type: "object", properties: { city: { type: "string" } }, required: ["city"] }],
    ]);
  });
});

describe("a recorded provider failure", () => {
  it("is recorded with the provider's status and error body, and replayed as the same failure", async () => {
    const errorBody = { error: { type: "rate_limit_error", message: "slow down" } };
    const provider = await startScriptedProvider({ turns: [{ status: 429, body: errorBody }] });
    const { rt, settle } = capturingRuntime();
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m-1", apiKey: "k", runtime: rt, retries: 0 });
    await expect(client.run("Weather in Oslo?")).rejects.toThrow(/429/);
    await provider.close();
    const events = await settle();
    const end = scopes(events).find((e) => e.category === "llm" && e.scope_category === "end")!;
    expect(end.data).toEqual({ status: 429, body: errorBody });
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });

    const server = await replay({ events });
    const replayed = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify((scopes(events).find((e) => e.category === "llm")!.data as { content: unknown }).content),
    });
    expect(replayed.status).toBe(429);
    expect(await replayed.json()).toEqual(errorBody);
    expect(server.served).toBe(1);
  });

  it("is recorded after the response sanitizers, so the replay serves the sanitized error body", async () => {
    const errorBody = { error: { type: "invalid_request_error", message: "key sk-live-1234 is not valid" } };
    const provider = await startScriptedProvider({ turns: [{ status: 401, body: errorBody }] });
    const { rt, settle } = capturingRuntime();
    rt.registerLlmSanitizeResponse("keys", 0, (response) => JSON.parse(JSON.stringify(response).replace(/sk-[\w-]+/g, "[key]")));
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m-1", apiKey: "k", runtime: rt, retries: 0 });
    await expect(client.run("Weather in Oslo?")).rejects.toThrow(/401/);
    await provider.close();
    const events = await settle();
    const sanitized = { error: { type: "invalid_request_error", message: "key [key] is not valid" } };
    expect(scopes(events).find((e) => e.category === "llm" && e.scope_category === "end")!.data).toEqual({ status: 401, body: sanitized });

    const server = await replay({ events });
    const replayed = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify((scopes(events).find((e) => e.category === "llm")!.data as { content: unknown }).content),
    });
    expect([replayed.status, await replayed.json()]).toEqual([401, sanitized]);
  });
});
