import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool, relayTool, type StreamEvent } from "../../src/agent/index.js";
import { startProvider, type ScriptedReply } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const sse = (events: { event?: string; data: unknown }[]) =>
  events
    .map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`)
    .join("");

const openaiToolTurn: ScriptedReply = {
  sse: sse([
    {
      data: {
        model: "stub",
        choices: [
          {
            index: 0,
            delta: {
              role: "assistant",
              content: null,
              tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "add", arguments: '{"a":' } }],
            },
          },
        ],
      },
    },
    { data: { model: "stub", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '2,"b":3}' } }] } }] } },
    { data: { model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] } },
    { data: { model: "stub", choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } } },
    { data: "[DONE]" },
  ]),
};
const openaiTextTurn: ScriptedReply = {
  sse: sse([
    { data: { model: "stub", choices: [{ index: 0, delta: { role: "assistant", content: "it is " } }] } },
    { data: { model: "stub", choices: [{ index: 0, delta: { content: "five" } }] } },
    { data: { model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
    { data: { model: "stub", choices: [], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } } },
    { data: "[DONE]" },
  ]),
};
const anthropicToolTurn: ScriptedReply = {
  sse: sse([
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: { id: "m1", model: "stub", role: "assistant", content: [], usage: { input_tokens: 5, output_tokens: 0 } },
      },
    },
    {
      event: "content_block_start",
      data: { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "c1", name: "add", input: {} } },
    },
    {
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":2,' } },
    },
    {
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"b":3}' } },
    },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ]),
};
const anthropicTextTurn: ScriptedReply = {
  sse: sse([
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: { id: "m2", model: "stub", role: "assistant", content: [], usage: { input_tokens: 7, output_tokens: 0 } },
      },
    },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "it is " } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "five" } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ]),
};

const add = defineTool({
  name: "add",
  description: "adds",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  execute: (args) => String((args.a as number) + (args.b as number)),
});

describe.each([
  ["openai", openaiToolTurn, openaiTextTurn],
  ["anthropic", anthropicToolTurn, anthropicTextTurn],
] as const)("client.stream (%s, SSE)", (style, toolTurn, textTurn) => {
  it("yields tool calls, results, text deltas, usage and done; the llm scopes are marked streaming", async () => {
    const srv = await startProvider([toolTurn, textTurn]);
    closers.push(srv.close);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const client = createClient({ baseUrl: srv.url, style, model: "stub", apiKey: "k", runtime, retryBaseMs: 1 });
    const seen: StreamEvent[] = [];
    for await (const ev of client.stream("2+3?", { toolkit: await createToolkit({ tools: [add] }) })) seen.push(ev);
    await runtime.flush();

    expect(seen.map((e) => e.type)).toEqual(["usage", "tool_call", "tool_result", "text", "text", "usage", "done"]);
    expect(seen[1]).toEqual({ type: "tool_call", id: "c1", name: "add", args: { a: 2, b: 3 } });
    expect(seen[2]).toEqual({ type: "tool_result", id: "c1", name: "add", output: "5", isError: false });
    expect(
      seen
        .filter((e) => e.type === "text")
        .map((e) => (e as { delta: string }).delta)
        .join(""),
    ).toBe("it is five");
    expect(seen[5]).toEqual({ type: "usage", usage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 } });
    const done = seen[6] as Extract<StreamEvent, { type: "done" }>;
    expect(done.result).toMatchObject({ status: "done", text: "it is five", turns: 2 });
    expect(srv.requests[0]!.body.stream).toBe(true);

    const llmEnds = events.filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end");
    expect(llmEnds).toHaveLength(2);
    for (const end of llmEnds) {
      expect(end.kind === "scope" && end.attributes).toContain("streaming");
      expect(typeof (end.metadata as Record<string, unknown>).time_to_first_chunk_ms).toBe("number");
      expect((end.metadata as Record<string, unknown>)["otel.status_code"]).toBe("OK");
    }
    expect(JSON.stringify(events)).not.toContain('"k"');
  });
});

describe("client.stream suspensions", () => {
  it("yields the pending request of a durable halt before done", async () => {
    const turn: ScriptedReply = {
      sse: sse([
        {
          data: {
            model: "stub",
            choices: [
              {
                index: 0,
                delta: {
                  role: "assistant",
                  tool_calls: [{ index: 0, id: "r1", type: "function", function: { name: "lookup", arguments: '{"q": "x"}' } }],
                },
              },
            ],
          },
        },
        { data: { model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] } },
        { data: "[DONE]" },
      ]),
    };
    const srv = await startProvider([turn]);
    closers.push(srv.close);
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
    });
    const seen: StreamEvent[] = [];
    for await (const ev of client.stream("look", { toolkit: await createToolkit({ tools: [relayTool("lookup", "l")] }) })) seen.push(ev);
    expect(seen.map((e) => e.type)).toEqual(["usage", "tool_call", "pending", "done"]);
    const p = seen[2] as Extract<StreamEvent, { type: "pending" }>;
    expect(p.request).toMatchObject({ kind: "tool_call", data: { calls: [{ id: "r1", arguments: '{"q": "x"}' }] } });
    expect((seen[3] as Extract<StreamEvent, { type: "done" }>).result.status).toBe("pending");
  });
});
