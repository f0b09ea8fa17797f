import { describe, expect, it } from "vitest";
import { createClient, createToolkit, defineTool, relayAnswer, relayTool } from "../../src/agent/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { codecForDialect } from "../../src/wire/index.js";
import type { Dialect } from "../../src/wire/index.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { scriptedProviders } from "../support/scripted-providers.js";
import { DIALECT_NAMES } from "../support/wire-fixtures.js";

// Every style end to end against the real scripted provider on 127.0.0.1: run, stream, ask,
// halt and resume, translate. The provider answers on the style's own wire.

const provider = scriptedProviders();
const SCHEMAS: Record<Dialect, string> = {
  openai: "openai/chat-completions",
  "openai-responses": "openai/responses",
  anthropic: "anthropic/messages",
  gemini: "gemini/generate-content",
};

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => String((a as number) + (b as number)),
});

/** The tool results and roles of a request body as its own dialect's codec reads them. */
function readRequest(style: Dialect, body: unknown) {
  const req = codecForDialect(style).decodeRequest(body as never);
  return {
    roles: req.messages.map((m) => m.role),
    results: req.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_result" ? [[p.toolCallId, p.text]] : [])),
    system: codecForDialect(style).systemInTranscript ? req.messages.find((m) => m.role === "system")?.text : req.system,
    tools: req.tools.map((t) => t.name),
  };
}

describe.each(DIALECT_NAMES)("createClient({ style: %j })", (style) => {
  it("runs a tool turn then answers, with usage that counts cached tokens in the prompt and the dialect's data_schema on llm events", async () => {
    const srv = await provider(
      [
        {
          toolCalls: [{ id: "c1", name: "add", arguments: { a: 2, b: 3 } }],
          usage: { promptTokens: 100, completionTokens: 10, cachedTokens: 40 },
        },
        { text: "The sum is 5.", usage: { promptTokens: 120, completionTokens: 6 } },
      ],
      style,
    );
    const { rt, settle } = capturingRuntime();
    const client = createClient({ baseUrl: srv.url, style, model: "m-1", apiKey: "k", systemPrompt: "Be exact.", runtime: rt });
    const result = await client.run("2+3?", { toolkit: await createToolkit({ tools: [add] }) });
    expect(result).toMatchObject({ status: "done", text: "The sum is 5.", turns: 2 });
    expect(result.toolCalls.map((c) => [c.id, c.name, c.args, c.output])).toEqual([["c1", "add", { a: 2, b: 3 }, "5"]]);
    expect(result.usage).toEqual({ promptTokens: 220, completionTokens: 16, totalTokens: 236 });

    const second = readRequest(style, srv.requests[1]!.body);
    expect(second.results).toEqual([["c1", "5"]]);
    expect(second.system).toBe("Be exact.");
    expect(second.tools).toEqual(["add"]);
    if (style === "gemini") expect(srv.requests[0]!.path).toBe("/v1beta/models/m-1:generateContent");

    const llm = scopes(await settle()).filter((e): e is ScopeEvent => e.category === "llm");
    expect(llm.map((e) => e.data_schema)).toEqual(Array(4).fill({ name: SCHEMAS[style], version: "1" }));
    expect(llm[0]!.name).toBe(codecForDialect(style).eventName);
  });

  it("streams text deltas and ends with the result; the llm end records the assembled reply in the dialect's own shape", async () => {
    const srv = await provider([{ text: "Hello from the stream, in pieces." }], style);
    const { rt, settle } = capturingRuntime();
    const client = createClient({ baseUrl: srv.url, style, model: "m-1", apiKey: "k", runtime: rt });
    let text = "";
    let done: unknown;
    for await (const e of client.stream("hi", { toolkit: await createToolkit({ tools: [add] }) })) {
      if (e.type === "text") text += e.delta;
      if (e.type === "done") done = e.result;
    }
    expect(text).toBe("Hello from the stream, in pieces.");
    expect(done).toMatchObject({ status: "done", text: "Hello from the stream, in pieces." });
    if (style === "gemini") expect(srv.requests[0]!.path).toBe("/v1beta/models/m-1:streamGenerateContent?alt=sse");
    const end = scopes(await settle()).find((e) => e.category === "llm" && e.scope_category === "end")!;
    expect(codecForDialect(style).decodeResponse(end.data, true).text).toBe("Hello from the stream, in pieces.");
  });

  it("keeps a conversation with ask: the second call sends the first exchange back", async () => {
    const srv = await provider([{ text: "Noted: blue." }, { text: "Blue." }], style);
    const client = createClient({ baseUrl: srv.url, style, model: "m-1", apiKey: "k", runtime: capturingRuntime().rt });
    const toolkit = await createToolkit({ tools: [] });
    await client.ask("My colour is blue.", { toolkit, id: "conv-1" });
    const again = await client.ask("What is my colour?", { toolkit, id: "conv-1" });
    expect(again.text).toBe("Blue.");
    const roles = readRequest(style, srv.requests[1]!.body).roles;
    expect(roles.filter((r) => r !== "system")).toEqual(["user", "assistant", "user"]);
  });

  it("halts on a relay tool and resumes with the host's answer", async () => {
    const srv = await provider(
      [
        {
          toolCalls: [
            { id: "c1", name: "add", arguments: { a: 1, b: 1 } },
            { id: "c2", name: "lookup", arguments: { q: "x" } },
          ],
        },
        { text: "all done" },
      ],
      style,
    );
    const client = createClient({ baseUrl: srv.url, style, model: "m-1", apiKey: "k", runtime: capturingRuntime().rt });
    const toolkit = await createToolkit({ tools: [add, relayTool("lookup", "Looks up")] });
    const halted = await client.run("go", { toolkit });
    expect(halted.status).toBe("pending");
    const answer = relayAnswer(halted.pending!.id, [{ id: "c2", output: "found x" }]);
    const resumed = await client.runWithAnswer({ toolkit, history: halted.messages, pending: halted.pending!, answer, halt: halted.halt! });
    expect(resumed).toMatchObject({ status: "done", text: "all done" });
    expect(readRequest(style, srv.requests[1]!.body).results).toEqual([
      ["c1", "2"],
      ["c2", "found x"],
    ]);
  });

  it("translates an OpenAI-style transcript with a tool turn onto its wire and the reply back", async () => {
    const srv = await provider(
      [
        {
          toolCalls: [{ id: "c9", name: "get_time", arguments: { tz: "CET" } }],
          usage: { promptTokens: 50, completionTokens: 5, cachedTokens: 20 },
        },
      ],
      style,
    );
    const client = createClient({ baseUrl: srv.url, style, model: "m-1", apiKey: "k", runtime: capturingRuntime().rt });
    const result = await client.translate({
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather and time in Oslo?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "4C" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "w", parameters: { type: "object", properties: { city: { type: "string" } } } },
        },
        {
          type: "function",
          function: { name: "get_time", description: "t", parameters: { type: "object", properties: { tz: { type: "string" } } } },
        },
      ],
      toolChoice: "required",
    });
    expect(result).toMatchObject({
      finishReason: "tool_calls",
      toolCalls: [{ id: "c9", name: "get_time", arguments: '{"tz":"CET"}' }],
      usage: { promptTokens: 50, cachedTokens: 20 },
    });
    const sent = codecForDialect(style).decodeRequest(srv.requests[0]!.body as never);
    expect(sent.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(
      sent.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_call" ? [[p.call.id, p.call.name, p.call.input]] : [])),
    ).toEqual([["call_1", "get_weather", { city: "Oslo" }]]);
    expect(sent.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_result" ? [[p.toolCallId, p.text]] : []))).toEqual([
      ["call_1", "4C"],
    ]);
    expect(sent.tools.map((t) => t.name)).toEqual(["get_weather", "get_time"]);
    expect(sent.toolChoice).toBe("required");
    expect(codecForDialect(style).systemInTranscript ? sent.messages[0]!.text : sent.system).toBe("Be brief.");
  });
});
