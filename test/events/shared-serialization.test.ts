import { describe, expect, it } from "vitest";
import { AtifExporter, atofToAtif } from "../../exporters/atif/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { serializeEvent, serializeEventPieces } from "../../src/events/atof-serialize.js";
import type { Json, JsonObject } from "../../src/events/json.js";
import { recurringJsonPieces, recurringJsonText, sharedJsonPieces, sharedJsonText } from "../../src/events/json-text.js";
import { longLivedJson } from "../../src/runtime/json-safe.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";

// Exporters share one serialization and one decode of an LLM event's body (it is deep-frozen and
// reaches them all as one object). What a user relies on: every exporter's output is exactly
// what it would be if each had serialized and decoded the body on its own.

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

const request: JsonObject = {
  model: "gpt-4.1",
  temperature: 0.2,
  messages: [
    { role: "system", content: 'Be brief. \u2028 "quoted" \\ back' },
    { role: "user", content: [{ type: "text", text: "Weather in Oslo? ❄" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "x".repeat(5000) },
  ],
  tools: [
    { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
  ],
};
const reply: JsonObject = {
  id: "chatcmpl-1",
  model: "gpt-4.1",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "4 °C and snow." } }],
  usage: { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 },
};

async function llmEvents(): Promise<{ events: AtofEvent[]; spans: Awaited<ReturnType<SpanCapture["spans"]>>; atif: AtifExporter }> {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const full = new SpanCapture({ projection: "full" });
  full.register(runtime);
  const openinference = new SpanCapture({ projection: "openinference" });
  openinference.register(runtime);
  const atif = new AtifExporter({ agent: { name: "a", version: "1" } });
  atif.register(runtime);
  await runtime.withScope(
    "agent",
    () =>
      runtime.executeLlm(
        "openai.chat.completions",
        { headers: { authorization: "Bearer sk-secret" }, content: request },
        async () => reply,
        { dataSchema: { name: "openai/chat-completions", version: "1" } },
      ),
    { category: "agent" },
  );
  await runtime.flush();
  const spans = [...(await full.spans()), ...(await openinference.spans())];
  await runtime.shutdown();
  return { events, spans, atif };
}

describe("exporters sharing one serialization of an LLM body", () => {
  it("writes the ATOF line of a delivered LLM event exactly as JSON.stringify would", async () => {
    const { events } = await llmEvents();
    const llm = events.filter((e) => e.category === "llm");
    expect(llm).toHaveLength(2);
    for (const e of llm) {
      expect(Object.isFrozen(e.data)).toBe(true);
      expect(serializeEvent(e)).toBe(JSON.stringify(e));
    }
  });

  it("gives the full projection the body's own JSON text, and OpenInference and ATIF the decoded messages", async () => {
    const { events, spans, atif } = await llmEvents();
    const fullLlm = spans.find(
      (s) => s.attributes["nemo_relay.scope_type"] === "llm" && s.attributes["nemo_relay.start.data.content"] !== undefined,
    )!;
    expect(fullLlm.attributes["nemo_relay.start.data.content"]).toBe(JSON.stringify(request));
    expect(fullLlm.attributes["nemo_relay.end.data.choices"]).toBe(JSON.stringify(reply["choices"]));
    const oi = spans.find((s) => s.attributes["openinference.span.kind"] === "LLM")!;
    expect(oi.attributes["llm.input_messages.3.message.content"]).toBe("x".repeat(5000));
    expect(oi.attributes["llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments"]).toBe('{"city":"Oslo"}');
    expect(oi.attributes["llm.output_messages.0.message.content"]).toBe("4 °C and snow.");
    const steps = atif.toJSON()[0]!.steps;
    // The request ends with a tool result: a continuing turn, so no user step.
    expect(steps.map((s) => [s.source, s.message, s.model_name])).toEqual([["agent", "4 °C and snow.", "gpt-4.1"]]);
    expect(JSON.stringify(events)).not.toContain("sk-secret");
  });

  it("sharedJsonText is JSON.stringify for frozen and unfrozen values alike", () => {
    const values: Json[] = [
      null,
      0,
      "a\u0000b",
      [],
      {},
      [1, { a: null }],
      { headers: { a: "1" }, content: request },
      { skipped: undefined as unknown as Json, kept: [undefined as unknown as Json] },
    ];
    for (const v of values) {
      const expected = JSON.stringify(v);
      expect(sharedJsonText(v)).toBe(expected);
      const frozen = deepFreeze(structuredClone(v));
      expect(sharedJsonText(frozen)).toBe(JSON.stringify(frozen));
      expect(sharedJsonText(frozen)).toBe(JSON.stringify(frozen)); // remembered: same text again
    }
  });

  it("writes a body holding recurring transcript messages as JSON.stringify would, turn after turn", () => {
    const messages = (request.messages as Json[]).map((m) => longLivedJson(m)!);
    const tools = longLivedJson(
      [{ type: "function", function: { name: "get_weather", parameters: { type: "object", required: ["city"] } } }],
      true,
    )!;
    const odd = { at: new Date(0), own: { toJSON: () => "own text" }, gone: undefined, fn: () => 1 };
    for (let turn = 1; turn <= messages.length; turn++) {
      const body = {
        model: "m",
        messages: messages.slice(0, turn),
        tools,
        tool_choice: "auto",
        ...odd,
        items: [messages[0], undefined, () => 1],
      };
      expect(recurringJsonText(body)).toBe(JSON.stringify(body));
      const frozen = deepFreeze({ headers: { a: "1" }, content: { ...body, messages: [...body.messages] } });
      expect(sharedJsonText(frozen as unknown as Json)).toBe(JSON.stringify(frozen));
    }
    const cyclic: Record<string, unknown> = { messages };
    cyclic.self = cyclic;
    expect(() => recurringJsonText(cyclic)).toThrow(TypeError);
    expect(() => recurringJsonText({ messages, big: 1n })).toThrow(TypeError);
  });

  it("gives the same text as pieces, none of them the whole of a long conversation's body", () => {
    // 200 messages of ~2 KB: the body is ~400 KB; written as pieces, no piece holds more than a message.
    const messages = Array.from({ length: 200 }, (_, i) =>
      longLivedJson({ role: i % 2 ? "tool" : "assistant", content: `${i} ${"note ".repeat(400)}` })!,
    );
    const longestMessage = Math.max(...messages.map((m) => JSON.stringify(m).length));
    const odd = { gone: undefined, fn: () => 1, at: new Date(0) };
    for (const turn of [1, 2, 100, 200]) {
      const body = { model: "m", ...odd, messages: messages.slice(0, turn), tail: [undefined, 2] };
      const pieces: string[] = [];
      recurringJsonPieces(body, pieces);
      expect(pieces.join("")).toBe(JSON.stringify(body));
      expect(pieces.join("")).toBe(recurringJsonText(body));
      const frozen = deepFreeze({ headers: { a: "1" }, content: { ...body, messages: [...body.messages] } }) as unknown as Json;
      // The projections may have composed (and remembered) the body's text first: the pieces still come from its parts.
      if (turn === 100) expect(sharedJsonText(frozen)).toBe(JSON.stringify(frozen));
      const shared: string[] = [];
      sharedJsonPieces(frozen, shared);
      expect(shared.join("")).toBe(JSON.stringify(frozen));
      expect(Math.max(...shared.map((p) => p.length))).toBeLessThanOrEqual(Math.max(longestMessage, 16 * 1024));
      if (turn === 200) expect(JSON.stringify(frozen).length).toBeGreaterThan(400_000);
    }
    const nothing: string[] = [];
    recurringJsonPieces(undefined, nothing);
    expect(nothing.join("")).toBe("null");
    const cyclic: Record<string, unknown> = { messages };
    cyclic.self = cyclic;
    expect(() => recurringJsonPieces(cyclic, [])).toThrow(TypeError);
  });

  it("writes a delivered LLM event's ATOF line as pieces that join to the line serializeEvent writes", async () => {
    const { events } = await llmEvents();
    for (const e of events) {
      const pieces = serializeEventPieces(e);
      expect(typeof pieces === "string" ? pieces : pieces.join("")).toBe(JSON.stringify(e));
      if (e.category === "llm") expect(Array.isArray(pieces)).toBe(true);
    }
  });

  it("keeps a value that is not plain JSON out of the recurring copies: the caller's own value is copied per event", () => {
    expect(longLivedJson({ role: "user", content: "hi", at: new Date(0) })).toBeUndefined();
    expect(longLivedJson({ role: "user", big: 1n })).toBeUndefined();
    expect(longLivedJson({ role: "user", skipped: undefined })).toBeUndefined();
    expect(longLivedJson({ role: "user", parts: [1, Number.NaN] })).toBeUndefined();
    expect(longLivedJson({ role: "user", parts: [{ type: "text", text: "hi" }, null, 2, true] })).toEqual({
      role: "user",
      parts: [{ type: "text", text: "hi" }, null, 2, true],
    });
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 60; i++) deep = { deep };
    expect(longLivedJson(deep)).toBeUndefined();
    const copy = longLivedJson({ role: "user", content: [{ type: "text", text: "hi" }] });
    expect(Object.isFrozen(copy)).toBe(true);
    expect(longLivedJson(copy)).toBe(copy);
  });

  it("lets ATIF documents share no frozen payload with their caller: toJSON() and atofToAtif give editable copies", async () => {
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const atif = new AtifExporter({ agent: { name: "a", version: "1" } });
    atif.register(runtime);
    await runtime.withScope(
      "agent",
      async () => {
        await runtime.executeLlm(
          "openai.chat.completions",
          { content: { model: "m", messages: [{ role: "user", content: "hi" }] } },
          async () => ({
            choices: [
              {
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{}" } }],
                },
              },
            ],
          }),
          { dataSchema: { name: "openai/chat-completions", version: "1" } },
        );
        await runtime.executeTool("lookup", { q: 1 }, async () => ({ result: { rows: [1, 2] } }), {
          toolCallId: "c1",
          metadata: { tag: "t" },
        });
      },
      { category: "agent" },
    );
    await runtime.shutdown();
    const observed = (docs: ReturnType<typeof atofToAtif>) => docs[0]!.steps.flatMap((s) => s.observation?.results ?? [])[0]!.extra!;
    for (const docs of [atif.toJSON(), atofToAtif(events)]) {
      const extra = observed(docs);
      expect(extra["tool_result"]).toEqual({ rows: [1, 2] });
      expect(Object.isFrozen(extra["tool_result"])).toBe(false);
      (extra["tool_result"] as { rows: number[] }).rows.push(3);
      (extra["metadata"] as Record<string, unknown>)["tag"] = "edited";
    }
    // the events and the exporter's own documents are untouched by those edits
    expect(observed(atif.toJSON())).toMatchObject({ tool_result: { rows: [1, 2] }, metadata: { tag: "t" } });
    expect(events.find((e) => e.category === "tool" && e.scope_category === "end")!.data).toEqual({ rows: [1, 2] });
  });
});
