import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import type { ProjectionName } from "../../exporters/otel/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { Json, JsonObject } from "../../src/events/json.js";
import { end, start, ts } from "../support/otel-events.js";

const AGENT = "019ca945-4000-7000-8000-0000000000a0";
const LLM = "019ca945-4001-7000-8000-0000000000a1";

const openaiRequest: JsonObject = {
  model: "gpt-4.1",
  temperature: 0.2,
  max_completion_tokens: 256,
  stop: "END",
  messages: [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "Weather in" },
        { type: "text", text: "Oslo?" },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: '{"temp_c":4}' },
  ],
  tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
};
const openaiResponse: JsonObject = {
  id: "chatcmpl-9",
  model: "gpt-4.1-2025-04-14",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_2", type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } }],
      },
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 100 } },
};

const anthropicRequest: JsonObject = {
  model: "claude-sonnet-4-5",
  max_tokens: 4096,
  system: "Be brief.",
  messages: [
    { role: "user", content: "Weather in Oslo?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "4C", is_error: false }] },
  ],
};
const anthropicResponse: JsonObject = {
  id: "msg_1",
  model: "claude-sonnet-4-5-20250929",
  type: "message",
  role: "assistant",
  stop_reason: "end_turn",
  content: [{ type: "text", text: "It is 4C in Oslo." }],
  usage: { input_tokens: 10, output_tokens: 8, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
};

async function llmSpan(projection: ProjectionName, name: string, body: Json, response: Json, model: string): Promise<ReadableSpan[]> {
  const capture = new SpanCapture({ projection });
  const events = [
    start({ uuid: AGENT, name: "assistant", category: "agent", at: ts("0.000001"), metadata: { session_id: "conv-1" } }),
    start({
      uuid: LLM,
      parent: AGENT,
      name,
      category: "llm",
      at: ts("0.000002"),
      profile: { model_name: model },
      data: { headers: { "content-type": "application/json" }, content: body },
      metadata: { turn: 1, server_address: "127.0.0.1", server_port: 8080 },
    }),
    end({
      uuid: LLM,
      parent: AGENT,
      name,
      category: "llm",
      at: ts("0.000003"),
      profile: { model_name: model },
      data: response,
      metadata: { "otel.status_code": "OK" },
    }),
    end({ uuid: AGENT, name: "assistant", category: "agent", at: ts("0.000004"), metadata: { "otel.status_code": "OK" } }),
  ];
  for (const e of events) capture.onEvent(e);
  return capture.spans();
}

describe("openinference LLM spans", () => {
  it("reads an OpenAI chat completion request and response", async () => {
    const spans = await llmSpan("openinference", "openai.chat_completions", openaiRequest, openaiResponse, "gpt-4.1");
    const a = spans.find((s) => s.name === "openai.chat_completions")!.attributes;
    expect(a["openinference.span.kind"]).toBe("LLM");
    expect(a["llm.provider"]).toBe("openai");
    expect(a["llm.system"]).toBe("openai");
    expect(a["llm.input_messages.0.message.role"]).toBe("system");
    expect(a["llm.input_messages.0.message.content"]).toBe("Be brief.");
    expect(a["llm.input_messages.1.message.content"]).toBe("Weather in\nOslo?");
    expect(a["llm.input_messages.3.message.role"]).toBe("tool");
    expect(a["llm.input_messages.3.message.tool_call_id"]).toBe("call_1");
    // the assistant tool-call turn stays in the conversation: its calls as OpenInference tool_calls, no empty content
    expect(a["llm.input_messages.2.message.role"]).toBe("assistant");
    expect(a).not.toHaveProperty("llm.input_messages.2.message.content");
    expect(a["llm.input_messages.2.message.tool_calls.0.tool_call.id"]).toBe("call_1");
    expect(a["llm.input_messages.2.message.tool_calls.0.tool_call.function.name"]).toBe("get_weather");
    expect(a["llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments"]).toBe('{"city":"Oslo"}');
    expect(a["input.value"]).toBe(
      "system: Be brief.\n\nuser: Weather in\nOslo?\n\nassistant: Requested tools: get_weather\n\ntool: Tool result omitted",
    );
    expect(a["input.mime_type"]).toBe("text/plain");
    expect(JSON.parse(a["llm.invocation_parameters"] as string)).toEqual({
      model: "gpt-4.1",
      temperature: 0.2,
      max_completion_tokens: 256,
      stop: "END",
    });
    expect(JSON.parse(a["llm.tools.0.tool.json_schema"] as string)).toEqual((openaiRequest["tools"] as Json[])[0]);
    expect(a["llm.token_count.prompt"]).toBe(120);
    expect(a["llm.token_count.completion"]).toBe(30);
    expect(a["llm.token_count.total"]).toBe(150);
    expect(a["llm.token_count.prompt_details.cache_read"]).toBe(100);
    expect(a["llm.finish_reason"]).toBe("tool_use");
    expect(a["llm.model_name"]).toBe("gpt-4.1-2025-04-14");
    expect(a["llm.output_messages.0.message.role"]).toBe("assistant");
    expect(a["llm.output_messages.0.message.tool_calls.0.tool_call.id"]).toBe("call_2");
    expect(a["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"]).toBe("get_time");
    expect(a["llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments"]).toBe('{"tz":"CET"}');
    expect(a["output.value"]).toBe("Requested tools: get_time");
    expect(a["output.mime_type"]).toBe("text/plain");
    // the start's metadata with the end's
    expect(JSON.parse(a["metadata"] as string)).toEqual({
      turn: 1,
      server_address: "127.0.0.1",
      server_port: 8080,
      "otel.status_code": "OK",
    });
    // the request headers never become attributes
    expect(Object.keys(a).some((k) => k.includes("headers"))).toBe(false);
  });

  it("reads an Anthropic messages request and response, counting cache tokens into the prompt", async () => {
    const spans = await llmSpan("openinference", "anthropic.messages", anthropicRequest, anthropicResponse, "claude-sonnet-4-5");
    const a = spans.find((s) => s.name === "anthropic.messages")!.attributes;
    expect(a["llm.provider"]).toBe("anthropic");
    expect(a["llm.input_messages.0.message.role"]).toBe("system");
    expect(a["llm.input_messages.0.message.content"]).toBe("Be brief.");
    expect(a["llm.input_messages.1.message.content"]).toBe("Weather in Oslo?");
    expect(a["llm.input_messages.2.message.content"]).toBe("Checking.");
    expect(a["llm.input_messages.3.message.role"]).toBe("tool");
    expect(a["llm.input_messages.3.message.tool_call_id"]).toBe("toolu_1");
    expect(a["llm.input_messages.3.message.content"]).toBe("4C");
    expect(JSON.parse(a["llm.invocation_parameters"] as string)).toEqual({ model: "claude-sonnet-4-5", max_tokens: 4096 });
    expect(a["llm.token_count.prompt"]).toBe(115);
    expect(a["llm.token_count.completion"]).toBe(8);
    expect(a["llm.token_count.total"]).toBe(123);
    expect(a["llm.token_count.prompt_details.cache_read"]).toBe(100);
    expect(a["llm.token_count.prompt_details.cache_write"]).toBe(5);
    expect(a["llm.finish_reason"]).toBe("complete");
    expect(a["llm.output_messages.0.message.content"]).toBe("It is 4C in Oslo.");
    expect(a["output.value"]).toBe("It is 4C in Oslo.");
    expect(a["llm.model_name"]).toBe("claude-sonnet-4-5-20250929");
  });
});

describe("gen_ai LLM spans", () => {
  it("names the span chat <model> and writes provider, request, usage and finish reasons", async () => {
    const spans = await llmSpan("gen_ai", "openai.chat_completions", openaiRequest, openaiResponse, "gpt-4.1");
    const llm = spans.find((s) => s.name === "chat gpt-4.1")!;
    expect(llm.kind).toBe(SpanKind.CLIENT);
    const a = llm.attributes;
    expect(a["gen_ai.operation.name"]).toBe("chat");
    expect(a["gen_ai.provider.name"]).toBe("openai");
    expect(a["gen_ai.request.model"]).toBe("gpt-4.1");
    expect(a["server.address"]).toBe("127.0.0.1");
    expect(a["server.port"]).toBe(8080);
    expect(a["gen_ai.request.temperature"]).toBe(0.2);
    expect(a["gen_ai.request.max_tokens"]).toBe(256);
    expect(a["gen_ai.request.stop_sequences"]).toEqual(["END"]);
    expect(a["gen_ai.response.id"]).toBe("chatcmpl-9");
    expect(a["gen_ai.response.model"]).toBe("gpt-4.1-2025-04-14");
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["tool_call"]);
    expect(a["gen_ai.usage.input_tokens"]).toBe(120);
    expect(a["gen_ai.usage.output_tokens"]).toBe(30);
    expect(a["gen_ai.usage.cache_read.input_tokens"]).toBe(100);
    const input = JSON.parse(a["gen_ai.input.messages"] as string);
    expect(input[2]).toEqual({
      role: "assistant",
      parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }],
    });
    expect(input[3]).toEqual({ role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: '{"temp_c":4}' }] });
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "call_2", name: "get_time", arguments: { tz: "CET" } }],
        finish_reason: "tool_call",
      },
    ]);
    expect(Object.keys(a).some((k) => k.startsWith("nemo_relay."))).toBe(false);
    // the agent span learns the provider from its model call
    const agent = spans.find((s) => s.name === "invoke_agent assistant")!;
    expect(agent.attributes["gen_ai.provider.name"]).toBe("openai");
    expect(agent.attributes["gen_ai.conversation.id"]).toBe("conv-1");
  });

  it("puts the Anthropic system prompt in system_instructions and counts cache tokens as input", async () => {
    const spans = await llmSpan("gen_ai", "anthropic.messages", anthropicRequest, anthropicResponse, "claude-sonnet-4-5");
    const a = spans.find((s) => s.name === "chat claude-sonnet-4-5")!.attributes;
    expect(a["gen_ai.provider.name"]).toBe("anthropic");
    expect(a["gen_ai.system_instructions"]).toBe('[{"type":"text","content":"Be brief."}]');
    const input = JSON.parse(a["gen_ai.input.messages"] as string);
    expect(input.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(input[2].parts).toEqual([{ type: "tool_call_response", id: "toolu_1", response: "4C" }]);
    expect(a["gen_ai.usage.input_tokens"]).toBe(115);
    expect(a["gen_ai.usage.cache_creation.input_tokens"]).toBe(5);
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
  });
});
