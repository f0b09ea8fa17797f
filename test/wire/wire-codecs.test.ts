import { describe, expect, it } from "vitest";
import {
  codecForDialect,
  codecForEvent,
  codecForSchema,
  DIALECTS,
  WIRE_CODECS,
  WireShapeError,
  WireStreamError,
} from "../../src/wire/index.js";
import type { WireCodec, WireResponse } from "../../src/wire/index.js";
import { allWireFixtures, type WireFixture } from "../support/wire-fixtures.js";

function assembled(codec: WireCodec, f: WireFixture): WireResponse {
  const assembler = codec.streamAssembler();
  let text = "";
  for (const ev of f.stream) text += assembler.push(ev).join("");
  expect(assembler.incomplete()).toBeUndefined();
  const response = assembler.result();
  expect(text).toBe(f.expected.text);
  return response;
}

describe("the codec registry", () => {
  it("lists the four dialects sorted by schema name, each under the ATOF consumers' schema names", () => {
    expect(WIRE_CODECS.map((c) => c.schema.name)).toEqual([
      "anthropic/messages",
      "gemini/generate-content",
      "openai/chat-completions",
      "openai/responses",
    ]);
    expect(DIALECTS).toEqual(["anthropic", "gemini", "openai", "openai-responses"]);
    for (const c of WIRE_CODECS) expect(c.schema.version).toBe("1");
  });

  it("names the choices for an unknown style and knows no unregistered schema", () => {
    expect(() => codecForDialect("cohere")).toThrow(
      /unknown provider style "cohere"; expected one of "anthropic", "gemini", "openai", "openai-responses"/,
    );
    expect(codecForSchema({ name: "openai/chat-completions", version: "2" })).toBeUndefined();
    expect(codecForSchema({ name: "acme/chat", version: "1" })).toBeUndefined();
  });
});

describe.each(allWireFixtures())("the $dialect codec on recorded bodies", (f) => {
  const codec = codecForDialect(f.dialect);
  const x = f.expected;

  it("is chosen by data_schema, and by body shape when a foreign file has none", () => {
    expect(codecForSchema(f.schema)).toBe(codec);
    expect(codecForEvent({ dataSchema: null, name: "some-llm", body: f.request, which: "request" })).toBe(codec);
    expect(codecForEvent({ dataSchema: null, name: "some-llm", body: f.response, which: "response" })).toBe(codec);
    // The schema wins over a misleading name.
    expect(codecForEvent({ dataSchema: f.schema, name: "anthropic.messages", body: {}, which: "request" })).toBe(codec);
  });

  describe("request", () => {
    const req = codec.decodeRequest(f.request);
    it("model", () => expect(req.model ?? null).toBe(x.model));
    it("system prompt (body-level only)", () => expect(req.system ?? null).toBe(x.system));
    it("message roles, one per transcript entry", () => expect(req.messages.map((m) => m.role)).toEqual(x.roles));
    it("user text", () => expect(req.messages.find((m) => m.role === "user")?.text).toBe(x.userText));
    it("the assistant's tool call", () => {
      const call = req.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_call");
      expect(call?.type === "tool_call" ? { id: call.call.id, name: call.call.name, arguments: call.call.arguments } : undefined).toEqual(
        x.requestToolCall,
      );
    });
    it("the tool result", () => {
      const result = req.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
      expect(result?.type === "tool_result" ? { toolCallId: result.toolCallId, text: result.text } : undefined).toEqual(x.toolResult);
    });
    it("tool definitions", () => expect(req.tools.map((t) => t.name)).toEqual(x.tools));
    it("tool input schemas", () => expect(req.tools[0]!.inputSchema).toEqual({ type: "object", properties: { city: { type: "string" } } }));
    it("tool choice", () => expect(req.toolChoice).toBe(x.toolChoice));
    it("settings", () => expect(req.settings).toEqual(x.settings));
    it("invocation parameters leave out the transcript, tools and system prompt", () => {
      for (const key of ["messages", "input", "contents", "tools", "system", "instructions", "systemInstruction"])
        expect(req.parameters).not.toHaveProperty(key);
    });
  });

  describe("response", () => {
    const res = codec.decodeResponse(f.response, true);
    it("id", () => expect(res.id).toBe(x.responseId));
    it("model", () => expect(res.model).toBe(x.responseModel));
    it("text", () => expect(res.text).toBe(x.text));
    it("reasoning", () => expect(res.reasoning).toBe(x.reasoning));
    it("finish kind", () => expect(res.finish).toBe(x.finish));
    it("raw finish reason", () => expect(res.rawFinishReason).toBe(x.rawFinishReason));
    it("input tokens include cached tokens", () => expect(res.usage?.inputTokens).toBe(x.usage.inputTokens));
    it("output tokens", () => expect(res.usage?.outputTokens).toBe(x.usage.outputTokens));
    it("total tokens", () => expect(res.usage?.totalTokens).toBe(x.usage.totalTokens));
    it("cache reads", () => expect(res.usage?.cacheReadTokens).toBe(x.usage.cacheReadTokens));
    it("cache writes", () => expect(res.usage?.cacheWriteTokens).toBe(x.usage.cacheWriteTokens));
    it("reasoning tokens", () => expect(res.usage?.reasoningTokens).toBe(x.usage.reasoningTokens));
    it("no tool calls on a text reply", () => expect(res.toolCalls).toEqual([]));
  });

  describe("tool-call response", () => {
    const res = codec.decodeResponse(f.toolResponse, true);
    it("the call's id, name and argument text", () =>
      expect(res.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))).toEqual([x.toolCall]));
    it("the arguments as a value", () => expect(res.toolCalls[0]!.input).toEqual({ tz: "CET" }));
    it("finishes as tool_calls", () => expect(res.finish).toBe("tool_calls"));
    it("the transcript entry sends the call back under the same id", () => {
      const replay = codec.decodeMessages(codec.assistantMessages(res));
      const calls = replay.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_call" ? [p.call.id] : []));
      expect(calls).toEqual([x.toolCall.id]);
    });
  });

  describe("stream", () => {
    it("assembles the same reply as the whole body", () => {
      const res = assembled(codec, f);
      const whole = codec.decodeResponse(f.response);
      expect({ text: res.text, finish: res.finish, usage: res.usage, model: res.model, id: res.id }).toEqual({
        text: whole.text,
        finish: whole.finish,
        usage: whole.usage,
        model: whole.model,
        id: whole.id,
      });
    });

    it("says a stream cut before its end is incomplete", () => {
      const assembler = codec.streamAssembler();
      for (const ev of f.stream.slice(0, Math.min(2, f.stream.length - 1))) assembler.push(ev);
      expect(assembler.incomplete()).toMatch(/ended before/);
    });

    it("rejects a chunk that is not JSON, naming it", () => {
      expect(() => codec.streamAssembler().push({ data: "{not json" })).toThrow(WireShapeError);
      expect(() => codec.streamAssembler().push({ data: "{not json" })).toThrow(/is not JSON: \{not json/);
    });
  });

  describe("errors", () => {
    it("a strict decode of an error body says the provider's message", () => {
      expect(() => codec.decodeResponse(f.error, true)).toThrow(WireShapeError);
      expect(() => codec.decodeResponse(f.error, true)).toThrow(x.errorMessage);
    });
    it("a lenient decode of an error body reads nothing and does not throw", () => {
      const res = codec.decodeResponse(f.error);
      expect({ text: res.text, toolCalls: res.toolCalls }).toEqual({ text: "", toolCalls: [] });
    });
    it("an error event inside a stream is a WireStreamError with the provider's message", () => {
      const ev =
        f.dialect === "anthropic"
          ? { event: "error", data: JSON.stringify(f.error) }
          : {
              data: JSON.stringify(f.dialect === "openai-responses" ? { type: "error", message: "Incorrect API key provided." } : f.error),
            };
      expect(() => codec.streamAssembler().push(ev)).toThrow(WireStreamError);
    });
  });

  describe("encode", () => {
    it("a reply written by the codec reads back the same (body and stream)", () => {
      const res = codec.decodeResponse(f.toolResponse, true);
      const again = codec.decodeResponse(codec.encodeResponse(res), true);
      expect({
        calls: again.toolCalls.map((c) => [c.id, c.name, c.input]),
        finish: again.finish,
        usage: [again.usage?.inputTokens, again.usage?.outputTokens],
      }).toEqual({
        calls: res.toolCalls.map((c) => [c.id, c.name, c.input]),
        finish: res.finish,
        usage: [res.usage?.inputTokens, res.usage?.outputTokens],
      });
      const assembler = codec.streamAssembler();
      for (const ev of codec.encodeStream(res)) assembler.push(ev);
      expect(assembler.result().toolCalls.map((c) => [c.id, c.name, c.input])).toEqual(res.toolCalls.map((c) => [c.id, c.name, c.input]));
    });

    it("a request written from another dialect's transcript reads back the same roles, calls and results", () => {
      const source = codecForDialect("openai").decodeRequest(allWireFixtures()[0]!.request);
      const body = codec.encodeRequest({
        model: "m",
        system: "Be brief.",
        messages: codec.encodeMessages(source.messages),
        tools: source.tools,
      });
      const back = codec.decodeRequest(body);
      const calls = back.messages
        .flatMap((m) => m.parts)
        .flatMap((p) => (p.type === "tool_call" ? [[p.call.id, p.call.name, p.call.input]] : []));
      const results = back.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_result" ? [[p.toolCallId, p.text]] : []));
      expect(calls).toEqual([["call_1", "get_weather", { city: "Oslo" }]]);
      expect(results).toEqual([["call_1", '{"temp_c":4}']]);
      expect(back.tools.map((t) => t.name)).toEqual(["get_weather"]);
      expect(codec.systemInTranscript ? back.messages[0]?.text : back.system).toBe("Be brief.");
    });
  });
});
