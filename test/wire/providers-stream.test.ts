import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicCodec,
  openaiCodec,
  parseSse,
  postStream,
  ProviderConnectionError,
  ProviderResponseError,
} from "../../src/agent/providers/index.js";
import type { ParsedTurn, ProviderCodec, SseEvent, StreamDelta } from "../../src/agent/providers/index.js";
import { sse, startProvider } from "../support/providers-server.js";
import type { FakeProvider, Reply } from "../support/providers-server.js";

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function collect(gen: AsyncGenerator<StreamDelta, ParsedTurn>): Promise<{ deltas: StreamDelta[]; turn: ParsedTurn }> {
  const deltas: StreamDelta[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { deltas, turn: step.value };
    deltas.push(step.value);
  }
}

async function streamTurn(codec: ProviderCodec, replies: Reply[]) {
  server = await startProvider(replies);
  const body = codec.buildBody({
    model: "m",
    systemPrompt: "",
    messages: codec.startMessages({ systemPrompt: "", prompt: "go" }),
    tools: [],
    stream: true,
  });
  const events = await postStream({ url: codec.url(server.baseUrl), headers: codec.authHeaders("k"), body, retryBaseMs: 1 });
  return collect(codec.parseStream(events));
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

async function eventsOf(chunks: string[]): Promise<SseEvent[]> {
  async function* source() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: SseEvent[] = [];
  for await (const ev of parseSse(source())) out.push(ev);
  return out;
}

describe("SSE line parser", () => {
  it("handles event/data fields, multi-line data, comments and CRLF split across chunks", async () => {
    const events = await eventsOf([
      ": keep-alive\r\n\r",
      "\nevent: ping\r\ndata: {}\r\n\r\n",
      "data: line one\ndata:line two\n",
      "\n",
      "data: [DONE]\n\n",
    ]);
    expect(events).toEqual([{ event: "ping", data: "{}" }, { data: "line one\nline two" }, { data: "[DONE]" }]);
  });

  it("delivers complete lines left without a closing blank line and drops a dangling partial line", async () => {
    expect(await eventsOf(["data: [DONE]\n"])).toEqual([{ data: "[DONE]" }]);
    expect(await eventsOf(['data: {"a":1}\n\ndata: {"b"'])).toEqual([{ data: '{"a":1}' }]);
  });
});

describe("OpenAI streaming", () => {
  const chunk = (delta: object, extra: object = {}) =>
    sse({ model: "gpt-x", choices: [{ index: 0, delta, finish_reason: null }], ...extra });

  it("sends the stream keys, yields text deltas and assembles tool calls by index with usage from the last chunk", async () => {
    const { deltas, turn } = await streamTurn(openaiCodec, [
      {
        chunks: [
          chunk({ role: "assistant", content: "" }),
          chunk({ content: "Hel" }),
          chunk({ content: "lo" }),
          chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }] }),
          chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: '{"tz":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
          chunk({
            tool_calls: [
              { index: 0, function: { arguments: '"Paris"}' } },
              { index: 1, function: { arguments: '"UTC"}' } },
            ],
          }),
          sse({ model: "gpt-x", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
          sse({
            model: "gpt-x",
            choices: [],
            usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, prompt_tokens_details: { cached_tokens: 2 } },
          }),
          "data: [DONE]\n\n",
        ],
      },
    ]);
    const sent = server!.requests[0]!;
    expect(sent.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(sent.headers.accept).toBe("text/event-stream");
    expect(deltas).toEqual([{ type: "first_chunk" }, { type: "text", delta: "Hel" }, { type: "text", delta: "lo" }]);
    expect(turn.text).toBe("Hello");
    expect(turn.toolCalls).toEqual([
      { id: "call_a", name: "get_weather", args: { city: "Paris" }, arguments: '{"city":"Paris"}' },
      { id: "call_b", name: "get_time", args: { tz: "UTC" }, arguments: '{"tz":"UTC"}' },
    ]);
    expect(turn.usage).toEqual({ promptTokens: 9, completionTokens: 4, totalTokens: 13, cachedTokens: 2 });
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.model).toBe("gpt-x");
    expect(turn.assistantMessages).toEqual([
      {
        role: "assistant",
        content: "Hello",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"tz":"UTC"}' } },
        ],
      },
    ]);
  });

  it("retries before the first byte, then streams", async () => {
    const { turn } = await streamTurn(openaiCodec, [
      { status: 502, body: "bad gateway" },
      { chunks: [chunk({ content: "ok" }), sse({ choices: [{ delta: {}, finish_reason: "stop" }] }), "data: [DONE]\n\n"] },
    ]);
    expect(turn.text).toBe("ok");
    expect(server!.requests).toHaveLength(2);
  });

  it("reports a stream closed before [DONE] as a truncated reply", async () => {
    const err = await failure(streamTurn(openaiCodec, [{ chunks: [chunk({ content: "Hel" })] }]));
    expect(err).toBeInstanceOf(ProviderConnectionError);
    expect((err as Error).message).toMatch(/ended before \[DONE\]/);
  });

  it("reports a dropped connection mid-stream clearly", async () => {
    const err = await failure(streamTurn(openaiCodec, [{ chunks: [chunk({ content: "Hel" }), 'data: {"choi'], destroy: true }]));
    expect(err).toBeInstanceOf(ProviderConnectionError);
    expect((err as Error).message).toMatch(/cut off|ended before/);
    // the cut came after the first byte: no retry
    expect(server!.requests).toHaveLength(1);
  });

  it("rejects a JSON reply where a stream was expected, and error chunks", async () => {
    const json = await failure(streamTurn(openaiCodec, [{ body: { error: { message: "stream unsupported" } } }]));
    expect(json).toBeInstanceOf(ProviderResponseError);
    expect((json as Error).message).toMatch(/expected an event stream.*stream unsupported/);
    await server!.close();
    const inStream = await failure(
      streamTurn(openaiCodec, [{ chunks: [chunk({ content: "a" }), sse({ error: { message: "model overloaded" } })] }]),
    );
    expect((inStream as Error).message).toMatch(/stream reported an error: model overloaded/);
  });
});

describe("Anthropic streaming", () => {
  const ev = (type: string, data: object) => sse({ type, ...data }, type);

  it("assembles text, thinking and tool_use blocks from content_block events", async () => {
    const { deltas, turn } = await streamTurn(anthropicCodec, [
      {
        chunks: [
          ev("message_start", {
            message: {
              id: "msg_1",
              model: "claude-x",
              content: [],
              usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 10 },
            },
          }),
          ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Need weather." } }),
          ev("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "sig" } }),
          ev("content_block_stop", { index: 0 }),
          ev("ping", {}),
          ev("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Let me " } }),
          ev("content_block_delta", { index: 1, delta: { type: "text_delta", text: "check." } }),
          ev("content_block_stop", { index: 1 }),
          ev("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } }),
          ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: "" } }),
          ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '{"city": "Par' } }),
          ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: 'is"}' } }),
          ev("content_block_stop", { index: 2 }),
          ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 30 } }),
          ev("message_stop", {}),
        ],
      },
    ]);
    expect(server!.requests[0]!.json).toMatchObject({ stream: true, max_tokens: 4096 });
    expect(server!.requests[0]!.json.stream_options).toBeUndefined();
    expect(deltas).toEqual([{ type: "first_chunk" }, { type: "text", delta: "Let me " }, { type: "text", delta: "check." }]);
    expect(turn.text).toBe("Let me check.");
    expect(turn.toolCalls).toEqual([{ id: "toolu_1", name: "get_weather", args: { city: "Paris" }, arguments: '{"city":"Paris"}' }]);
    expect(turn.assistantMessages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Need weather.", signature: "sig" },
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        ],
      },
    ]);
    expect(turn.usage).toEqual({ promptTokens: 35, completionTokens: 30, totalTokens: 65, cachedTokens: 10 });
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.model).toBe("claude-x");
  });

  it("reports a stream closed before message_stop as a truncated reply", async () => {
    const err = await failure(
      streamTurn(anthropicCodec, [
        {
          chunks: [
            ev("message_start", { message: { model: "claude-x", usage: { input_tokens: 1 } } }),
            ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
            ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hi" } }),
          ],
        },
      ]),
    );
    expect(err).toBeInstanceOf(ProviderConnectionError);
    expect((err as Error).message).toMatch(/ended before message_stop/);
  });

  it("surfaces an error event with the provider's message", async () => {
    const err = await failure(
      streamTurn(anthropicCodec, [{ chunks: [ev("error", { error: { type: "overloaded_error", message: "Overloaded" } })] }]),
    );
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect((err as Error).message).toMatch(/overloaded_error: Overloaded/);
  });
});
