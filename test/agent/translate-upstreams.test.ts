import { afterEach, describe, expect, it } from "vitest";
import { anthropicCodec, openaiCodec, ProviderHttpError } from "../../src/agent/providers/index.js";
import type { ProviderCodec, ToolDeclaration } from "../../src/agent/providers/index.js";
import { translate } from "../../src/agent/translate.js";
import type { CallLlm, TranslateOptions } from "../../src/agent/translate.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { startProvider } from "../support/providers-server.js";
import type { FakeProvider, Reply } from "../support/providers-server.js";

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const direct: CallLlm = (_route, _request, send) => send();

const lookup: ToolDeclaration = {
  name: "lookup",
  description: "Look up",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
};
const toolkit = { declarations: () => [lookup] };

const transcript = [
  { role: "developer", content: "You are terse." },
  {
    role: "user",
    content: [
      { type: "text", text: "Find " },
      { type: "text", text: "Paris" },
    ],
  },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [
      { id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"Paris"}' } },
      { id: "c2", type: "function", function: { name: "lookup", arguments: { q: "France" } } },
    ],
  },
  { role: "tool", tool_call_id: "c1", content: "capital of France" },
  { role: "tool", tool_call_id: "c2", content: "a country" },
  { role: "assistant", content: "" },
  { role: "user", content: "and the population?" },
];

async function run(codec: ProviderCodec, reply: Reply, options: Partial<TranslateOptions> = {}, callLlm: CallLlm = direct) {
  server = await startProvider([reply]);
  const result = await translate(
    { codec, baseUrl: server.baseUrl, model: "m-1", apiKey: "sk-secret", retryBaseMs: 1, callLlm },
    { messages: transcript, ...options },
  );
  return { result, request: server.requests[0]! };
}

describe("translate against an OpenAI upstream", () => {
  it("passes the transcript through, adding only what was asked for", async () => {
    const { result, request } = await run(
      openaiCodec,
      {
        body: {
          model: "m-1-0613",
          choices: [
            {
              finish_reason: "tool_calls",
              message: {
                content: null,
                tool_calls: [{ id: "x1", type: "function", function: { name: "lookup", arguments: '{"q": "pop"}' } }],
              },
            },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 },
        },
      },
      {
        toolkit,
        tools: [{ type: "function", function: { name: "extra", description: "E", parameters: { type: "object" } } }],
        toolChoice: { type: "function", function: { name: "lookup" } },
        system: "ignored: a developer message exists",
        maxTokens: 0,
      },
    );
    expect(request.path).toBe("/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-secret");
    expect(request.json).toEqual({
      model: "m-1",
      messages: transcript,
      tools: [
        { type: "function", function: { name: "lookup", description: "Look up", parameters: lookup.inputSchema } },
        { type: "function", function: { name: "extra", description: "E", parameters: { type: "object" } } },
      ],
      tool_choice: { type: "function", function: { name: "lookup" } },
    });
    expect(result).toMatchObject({
      text: "",
      toolCalls: [{ id: "x1", name: "lookup", arguments: '{"q": "pop"}' }],
      finishReason: "tool_calls",
      usage: { promptTokens: 30, completionTokens: 6, totalTokens: 36 },
      model: "m-1-0613",
    });
  });

  it("prepends the system message when none exists, sends max_tokens > 0 and maps the finish reason", async () => {
    server = await startProvider([{ body: { choices: [{ finish_reason: "content_filter", message: { content: "no" } }] } }]);
    const result = await translate(
      { codec: openaiCodec, baseUrl: server.baseUrl, model: "m-1", systemPrompt: "client prompt", callLlm: direct },
      { messages: [{ role: "user", content: "hi" }], maxTokens: 50 },
    );
    expect(server.requests[0]!.json).toEqual({
      model: "m-1",
      messages: [
        { role: "system", content: "client prompt" },
        { role: "user", content: "hi" },
      ],
      max_tokens: 50,
    });
    expect(result.finishReason).toBe("content_filter");
    expect(result.text).toBe("no");
    expect(result.model).toBe("m-1");
  });
});

describe("translate against an Anthropic upstream", () => {
  it("maps the transcript, tools and tool_choice onto the Messages dialect", async () => {
    const { result, request } = await run(
      anthropicCodec,
      {
        body: {
          model: "claude-x",
          stop_reason: "tool_use",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "tu1", name: "lookup", input: { q: "population" } },
            { type: "tool_use", id: "tu2", name: "extra" },
          ],
          usage: { input_tokens: 40, output_tokens: 9, cache_read_input_tokens: 5 },
        },
      },
      {
        toolkit,
        tools: [
          { type: "function", function: { name: "extra", description: "E" } },
          { name: "native", input_schema: { type: "object" } },
        ],
        toolChoice: "required",
      },
    );
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("sk-secret");
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.json).toEqual({
      model: "m-1",
      max_tokens: 4096,
      system: "You are terse.",
      messages: [
        { role: "user", content: "Find Paris" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "c1", name: "lookup", input: { q: "Paris" } },
            { type: "tool_use", id: "c2", name: "lookup", input: { q: "France" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: "capital of France" },
            { type: "tool_result", tool_use_id: "c2", content: "a country" },
          ],
        },
        { role: "user", content: "and the population?" },
      ],
      tools: [
        { name: "lookup", description: "Look up", input_schema: lookup.inputSchema },
        { name: "extra", description: "E", input_schema: { type: "object", properties: {} } },
        { name: "native", input_schema: { type: "object" } },
      ],
      tool_choice: { type: "any" },
    });
    expect(result).toMatchObject({
      text: "Checking.",
      toolCalls: [
        { id: "tu1", name: "lookup", arguments: '{"q":"population"}' },
        { id: "tu2", name: "extra", arguments: "{}" },
      ],
      finishReason: "tool_calls",
      usage: { promptTokens: 45, completionTokens: 9, totalTokens: 54, cachedTokens: 5 },
      model: "claude-x",
    });
  });

  it("prefers the system option, maps none/named tool_choice and honours maxTokens", async () => {
    server = await startProvider([
      { body: { content: [{ type: "text", text: "a" }], stop_reason: "end_turn" } },
      { body: { content: [{ type: "text", text: "b" }], stop_reason: "max_tokens" } },
      { body: { content: [{ type: "text", text: "c" }], stop_reason: "end_turn" } },
    ]);
    const deps = { codec: anthropicCodec, baseUrl: `${server.baseUrl}/v1`, model: "m", systemPrompt: "client", callLlm: direct };
    await translate(deps, { messages: transcript, system: "explicit", toolChoice: "none", maxTokens: 77 });
    const second = await translate(deps, {
      messages: [{ role: "user", content: "x" }],
      toolChoice: { type: "function", function: { name: "lookup" } },
    });
    await translate({ ...deps, systemPrompt: undefined }, { messages: [{ role: "user", content: "x" }], toolChoice: "auto" });
    const [a, b, c] = server.requests.map((r) => r.json);
    expect(server.requests[0]!.path).toBe("/v1/messages");
    expect(a).toMatchObject({ system: "explicit", tool_choice: { type: "none" }, max_tokens: 77 });
    expect(b).toMatchObject({ system: "client", tool_choice: { type: "tool", name: "lookup" }, max_tokens: 4096 });
    expect(second.finishReason).toBe("length");
    expect(c.system).toBeUndefined();
    expect(c.tool_choice).toBeUndefined();
  });
});

describe("translate through a real runtime's executeLlm", () => {
  function runtimeCall(events: AtofEvent[]) {
    const runtime = createRuntime();
    runtime.subscribe("capture", (e) => {
      events.push(e);
    });
    const callLlm: CallLlm = (route, request, send) =>
      runtime.executeLlm(route, request, (real) => send(real) as Promise<never>, { modelName: "m-1" });
    return { runtime, callLlm };
  }

  it("records one llm scope without credentials while the provider gets them and a traceparent", async () => {
    const events: AtofEvent[] = [];
    const { runtime, callLlm } = runtimeCall(events);
    const reply = {
      model: "claude-x",
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 1 },
    };
    const { result, request } = await run(anthropicCodec, { body: reply }, {}, callLlm);
    await runtime.flush();
    expect(result.text).toBe("hello");
    expect(request.headers["x-api-key"]).toBe("sk-secret");
    expect(request.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const llm = events.filter((e) => e.kind === "scope" && e.category === "llm");
    expect(llm.map((e) => (e.kind === "scope" ? e.scope_category : ""))).toEqual(["start", "end"]);
    const [start, end] = llm;
    expect(start!.name).toBe("anthropic.messages");
    expect(JSON.stringify(events)).not.toContain("sk-secret");
    expect(start!.data).toMatchObject({ headers: { "anthropic-version": "2023-06-01" }, content: { model: "m-1", max_tokens: 4096 } });
    expect(end!.data).toEqual(reply);
    await runtime.shutdown();
  });

  it("ends the llm scope with the provider error's type when the call fails", async () => {
    const events: AtofEvent[] = [];
    const { runtime, callLlm } = runtimeCall(events);
    server = await startProvider([{ status: 401, body: "invalid x-api-key" }]);
    let caught: unknown;
    try {
      await translate(
        { codec: anthropicCodec, baseUrl: server.baseUrl, model: "m", apiKey: "sk-secret", callLlm },
        { messages: [{ role: "user", content: "x" }] },
      );
    } catch (err) {
      caught = err;
    }
    await runtime.flush();
    expect(caught).toBeInstanceOf(ProviderHttpError);
    const end = events.find((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end");
    expect(end?.metadata).toMatchObject({
      "otel.status_code": "ERROR",
      "error.type": "authentication",
      "otel.status_description": "LLM 401: invalid x-api-key",
    });
    await runtime.shutdown();
  });
});
