import { afterEach, describe, expect, it } from "vitest";
import { anthropicCodec, codecFor, openaiCodec, postJson, ProviderResponseError } from "../../src/agent/providers/index.js";
import type { ProviderCodec, ToolDeclaration } from "../../src/agent/providers/index.js";
import { startProvider } from "../support/providers-server.js";
import type { FakeProvider } from "../support/providers-server.js";

const weather: ToolDeclaration = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function callOnce(
  codec: ProviderCodec,
  base: string,
  reply: unknown,
  opts: { tools?: ToolDeclaration[]; systemPrompt?: string } = {},
) {
  server = await startProvider([{ body: reply }]);
  const messages = codec.startMessages({ systemPrompt: opts.systemPrompt ?? "", prompt: "weather in Paris?" });
  const body = codec.buildBody({ model: "m-1", systemPrompt: opts.systemPrompt ?? "", messages, tools: opts.tools ?? [] });
  const res = await postJson({ url: codec.url(server.baseUrl + base), headers: codec.authHeaders("sk-test"), body, retryBaseMs: 1 });
  return { parsed: codec.parseResponse(res.json), request: server.requests[0]! };
}

describe("OpenAI codec against a scripted provider", () => {
  it("sends the chat/completions request shape and parses tool calls and usage", async () => {
    const { parsed, request } = await callOnce(
      openaiCodec,
      "/v1/",
      {
        model: "m-1-2025",
        choices: [
          {
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
                { id: "call_2", type: "function", function: { name: "get_weather", arguments: "not json" } },
                { id: "call_3", type: "function", function: { name: "get_weather", arguments: "" } },
              ],
            },
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 8 } },
      },
      { tools: [weather], systemPrompt: "be brief" },
    );
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.json).toEqual({
      model: "m-1",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "weather in Paris?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: weather.inputSchema } }],
      tool_choice: "auto",
    });
    expect(parsed.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", args: { city: "Paris" }, arguments: '{"city":"Paris"}' },
      { id: "call_2", name: "get_weather", args: {}, arguments: "not json" },
      { id: "call_3", name: "get_weather", args: {}, arguments: "" },
    ]);
    expect(parsed.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17, cachedTokens: 8 });
    expect(parsed.finishReason).toBe("tool_calls");
    expect(parsed.model).toBe("m-1-2025");
    expect(parsed.assistantMessages).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: "not json" } },
          { id: "call_3", type: "function", function: { name: "get_weather", arguments: "" } },
        ],
      },
    ]);
  });

  it("omits tool keys without tools, and the system message when the prompt is empty or history exists", async () => {
    const { request, parsed } = await callOnce(openaiCodec, "", {
      choices: [{ finish_reason: "length", message: { role: "assistant", content: "Sunny" } }],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    });
    expect(request.path).toBe("/chat/completions");
    expect(request.json).toEqual({ model: "m-1", messages: [{ role: "user", content: "weather in Paris?" }] });
    expect(parsed.text).toBe("Sunny");
    expect(parsed.finishReason).toBe("length");
    expect(parsed.usage).toEqual({ promptTokens: 3, completionTokens: 4, totalTokens: 7 });
    const history = [
      { role: "system", content: "old" },
      { role: "user", content: "hi" },
    ];
    expect(openaiCodec.startMessages({ systemPrompt: "new", prompt: "again", history })).toEqual([
      ...history,
      { role: "user", content: "again" },
    ]);
  });

  it("treats an empty choices array as a finished turn with no text", () => {
    const parsed = openaiCodec.parseResponse({ choices: [] });
    expect(parsed.text).toBe("");
    expect(parsed.toolCalls).toEqual([]);
    expect(parsed.finishReason).toBe("stop");
  });

  it.each([
    [null, /not a JSON object|expected a JSON object/],
    [{ id: "x" }, /no choices/],
    [{ error: { type: "rate_limit", message: "slow down" } }, /no choices.*rate_limit: slow down/],
    [{ choices: [{ finish_reason: "stop" }] }, /choices\[0\]\.message/],
    [{ choices: [{ message: { tool_calls: [{ id: "c1", function: { arguments: "{}" } }] } }] }, /tool_calls\[0\]\.function has no name/],
    [{ choices: [{ message: { tool_calls: [{ function: { name: "f" } }] } }] }, /tool_calls\[0\] has no id/],
  ])("rejects a malformed reply %j with a ProviderResponseError naming the problem", (reply, message) => {
    let caught: unknown;
    try {
      openaiCodec.parseResponse(reply);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProviderResponseError);
    expect((caught as Error).message).toMatch(message);
    expect((caught as ProviderResponseError).code).toBe("upstream_error");
  });

  it("builds one tool message per result and finds the last tool turn", () => {
    expect(
      openaiCodec.toolResultMessages([
        { id: "a", name: "f", output: "1", isError: false },
        { id: "b", name: "g", output: "boom", isError: true },
      ]),
    ).toEqual([
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "b", content: "boom" },
    ]);
    const messages = [
      { role: "user", content: "q" },
      { role: "assistant", content: "", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "assistant", content: "done" },
    ];
    expect(openaiCodec.lastToolTurn(messages)).toEqual({ index: 1, calls: [{ id: "a", name: "f", args: {}, arguments: "{}" }] });
    expect(openaiCodec.lastToolTurn([{ role: "user", content: "q" }])).toBeUndefined();
  });
});

describe("Anthropic codec against a scripted provider", () => {
  it("sends the messages request shape and parses tool_use, thinking and cache usage", async () => {
    const thinking = { type: "thinking", thinking: "Let me check.", signature: "sig==" };
    const redacted = { type: "redacted_thinking", data: "opaque" };
    const { parsed, request } = await callOnce(
      anthropicCodec,
      "/",
      {
        id: "msg_1",
        model: "claude-x",
        stop_reason: "tool_use",
        content: [
          thinking,
          redacted,
          { type: "text", text: "Checking " },
          { type: "text", text: "now." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather" },
        ],
        usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 30 },
      },
      { tools: [weather], systemPrompt: "be brief" },
    );
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("sk-test");
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.json).toEqual({
      model: "m-1",
      max_tokens: 4096,
      system: "be brief",
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools: [{ name: "get_weather", description: "Weather for a city", input_schema: weather.inputSchema }],
    });
    expect(parsed.text).toBe("Checking now.");
    expect(parsed.toolCalls).toEqual([
      { id: "toolu_1", name: "get_weather", args: { city: "Paris" }, arguments: '{"city":"Paris"}' },
      { id: "toolu_2", name: "get_weather", args: {}, arguments: "{}" },
    ]);
    expect(parsed.assistantMessages).toEqual([
      {
        role: "assistant",
        content: [
          thinking,
          redacted,
          { type: "text", text: "Checking " },
          { type: "text", text: "now." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: {} },
        ],
      },
    ]);
    expect(parsed.usage).toEqual({ promptTokens: 150, completionTokens: 7, totalTokens: 157, cachedTokens: 130 });
    expect(parsed.finishReason).toBe("tool_calls");
    expect(parsed.model).toBe("claude-x");
  });

  it("uses {base}/messages when the base ends in /v1 and omits an empty system", async () => {
    const { request, parsed } = await callOnce(anthropicCodec, "/v1//", {
      content: [{ type: "text", text: "Sunny" }],
      stop_reason: "max_tokens",
      usage: { input_tokens: 1, output_tokens: 2 },
    });
    expect(request.path).toBe("/v1/messages");
    expect(request.json).toEqual({ model: "m-1", max_tokens: 4096, messages: [{ role: "user", content: "weather in Paris?" }] });
    expect(parsed.finishReason).toBe("length");
    expect(parsed.usage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 });
  });

  it("maps refusal to content_filter and keeps max_tokens when given", () => {
    expect(anthropicCodec.parseResponse({ content: [], stop_reason: "refusal" }).finishReason).toBe("content_filter");
    const body = anthropicCodec.buildBody({ model: "m", systemPrompt: "", messages: [], tools: [], maxTokens: 99, stream: true });
    expect(body).toEqual({ model: "m", max_tokens: 99, messages: [], stream: true });
  });

  it.each([
    ["text", /not a JSON object|expected a JSON object/],
    [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, /no content array.*overloaded_error: Overloaded/],
    [{ content: "hello" }, /no content array/],
    [{ content: [{ type: "tool_use", id: "t1", input: {} }] }, /content\[0\] \(tool_use\) has no name/],
    [{ content: [{ type: "tool_use", name: "f", input: {} }] }, /content\[0\] \(tool_use\) has no id/],
  ])("rejects a malformed reply %j with a ProviderResponseError naming the problem", (reply, message) => {
    expect(() => anthropicCodec.parseResponse(reply)).toThrow(ProviderResponseError);
    expect(() => anthropicCodec.parseResponse(reply)).toThrow(message);
  });

  it("builds ONE user message of tool_result blocks and finds the last tool turn", () => {
    expect(
      anthropicCodec.toolResultMessages([
        { id: "a", name: "f", output: "1", isError: false },
        { id: "b", name: "g", output: "boom", isError: true },
      ]),
    ).toEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: "1", is_error: false },
          { type: "tool_result", tool_use_id: "b", content: "boom", is_error: true },
        ],
      },
    ]);
    const messages = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "x" },
          { type: "tool_use", id: "a", name: "f", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "1" }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    expect(anthropicCodec.lastToolTurn(messages)).toEqual({ index: 1, calls: [{ id: "a", name: "f", args: {}, arguments: "{}" }] });
    expect(anthropicCodec.startMessages({ systemPrompt: "s", prompt: "p" })).toEqual([{ role: "user", content: "p" }]);
  });

  it("codecFor picks the style and names the choices for an unknown one", () => {
    expect(codecFor("openai")).toBe(openaiCodec);
    expect(codecFor("anthropic").route).toBe("anthropic.messages");
    expect(() => codecFor("cohere" as never)).toThrow(/unknown provider style "cohere"; expected one of "anthropic", .*"openai"/);
  });
});
