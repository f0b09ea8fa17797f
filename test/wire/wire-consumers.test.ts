import { describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import type { ProjectionName } from "../../exporters/otel/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { codecFor } from "../../src/agent/providers/index.js";
import { AtofSpanCollector } from "../../src/cli/viewer/from-atof.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { allWireFixtures, replay, type WireFixture } from "../support/wire-fixtures.js";

// One recorded body per dialect, read by every consumer: the loop, the three span projections
// and ATIF agree field by field with the codec's expectations (prompt tokens include cached ones).

const AGENT = "019ca945-4000-7000-8000-0000000000a0";
const LLM = "019ca945-4001-7000-8000-0000000000a1";

function llmEvents(f: WireFixture, response = f.response): AtofEvent[] {
  const base = { atof_version: "0.1", kind: "scope", parent_uuid: AGENT, attributes: [], category: "llm" } as const;
  // A foreign producer's event name: only the data_schema says which dialect the bodies are.
  const startLlm: ScopeEvent = {
    ...base,
    scope_category: "start",
    uuid: LLM,
    timestamp: "2026-03-01T12:00:00.000002Z",
    name: "model-call",
    category_profile: { model_name: "m" },
    data: { headers: {}, content: f.request },
    data_schema: f.schema,
    metadata: null,
  };
  const endLlm: ScopeEvent = {
    ...base,
    scope_category: "end",
    uuid: LLM,
    timestamp: "2026-03-01T12:00:00.000003Z",
    name: "model-call",
    category_profile: { model_name: "m" },
    data: response,
    data_schema: f.schema,
    metadata: { "otel.status_code": "OK" },
  };
  const agent = (phase: "start" | "end", at: string): ScopeEvent => ({
    ...base,
    scope_category: phase,
    uuid: AGENT,
    parent_uuid: null,
    timestamp: at,
    name: "assistant",
    category: "agent",
    category_profile: null,
    data: phase === "start" ? { prompt: "Weather in Oslo?" } : null,
    data_schema: null,
    metadata: null,
  });
  return [agent("start", "2026-03-01T12:00:00.000001Z"), startLlm, endLlm, agent("end", "2026-03-01T12:00:00.000004Z")];
}

async function llmAttributes(f: WireFixture, projection: ProjectionName, response = f.response) {
  const capture = new SpanCapture({ projection });
  for (const e of llmEvents(f, response)) capture.onEvent(e);
  const spans = await capture.spans();
  return spans.find((s) => s.attributes["openinference.span.kind"] === "LLM" || s.attributes["gen_ai.request.model"] === "m")!.attributes;
}

describe.each(allWireFixtures())("$dialect bodies, read by every consumer", (f) => {
  const x = f.expected;

  it("the loop: usage (prompt includes cached), cached beside, text, finish", () => {
    const turn = codecFor(f.dialect).parseResponse(f.response);
    const cached = (x.usage.cacheReadTokens ?? 0) + (x.usage.cacheWriteTokens ?? 0);
    expect(turn.usage).toEqual({
      promptTokens: x.usage.inputTokens,
      completionTokens: x.usage.outputTokens,
      totalTokens: x.usage.totalTokens,
      cachedTokens: cached,
    });
    expect(turn.text).toBe(x.text);
    expect(turn.finishReason).toBe(x.finish);
    expect(turn.model).toBe(x.responseModel);
  });

  it("the loop's stream reader: the recorded chunks give the same turn", async () => {
    const gen = codecFor(f.dialect).parseStream(replay(f.stream));
    const deltas: string[] = [];
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        expect(step.value.usage.promptTokens).toBe(x.usage.inputTokens);
        expect(step.value.text).toBe(x.text);
        break;
      }
      if (step.value.type === "text") deltas.push(step.value.delta);
    }
    expect(deltas.join("")).toBe(x.text);
  });

  it("the loop: tool calls with parsed arguments", () => {
    const turn = codecFor(f.dialect).parseResponse(f.toolResponse);
    expect(turn.toolCalls).toEqual([{ id: x.toolCall.id, name: x.toolCall.name, args: { tz: "CET" }, arguments: x.toolCall.arguments }]);
    expect(turn.finishReason).toBe("tool_calls");
  });

  it("gen_ai: input tokens include cached tokens; output, cache reads, response id and model", async () => {
    const a = await llmAttributes(f, "gen_ai");
    expect(a["gen_ai.usage.input_tokens"]).toBe(x.usage.inputTokens);
    expect(a["gen_ai.usage.output_tokens"]).toBe(x.usage.outputTokens);
    expect(a["gen_ai.usage.cache_read.input_tokens"]).toBe(x.usage.cacheReadTokens);
    expect(a["gen_ai.response.id"]).toBe(x.responseId);
    expect(a["gen_ai.response.model"]).toBe(x.responseModel);
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(a["gen_ai.request.temperature"]).toBe(0.2);
    expect(a["gen_ai.request.max_tokens"]).toBe(x.settings.maxTokens);
    if (x.system !== null) expect(a["gen_ai.system_instructions"]).toBe(JSON.stringify([{ type: "text", content: x.system }]));
  });

  it("openinference: prompt count includes cached tokens; messages, tools and finish from the same reading", async () => {
    const a = await llmAttributes(f, "openinference");
    expect(a["llm.token_count.prompt"]).toBe(x.usage.inputTokens);
    expect(a["llm.token_count.completion"]).toBe(x.usage.outputTokens);
    expect(a["llm.token_count.total"]).toBe(x.usage.totalTokens);
    expect(a["llm.token_count.prompt_details.cache_read"]).toBe(x.usage.cacheReadTokens);
    expect(a["llm.finish_reason"]).toBe("complete");
    expect(a["llm.output_messages.0.message.content"]).toBe(x.text);
    expect(a["llm.model_name"]).toBe(x.responseModel);
    expect(a["llm.tools.0.tool.json_schema"]).toContain('"get_weather"');
    const roles = Object.entries(a)
      .filter(([k]) => /^llm\.input_messages\.\d+\.message\.role$/.test(k))
      .map(([, v]) => v);
    expect(roles).toContain("tool");
  });

  it("openinference: the tool call of a tool-call reply", async () => {
    const a = await llmAttributes(f, "openinference", f.toolResponse);
    expect(a["llm.output_messages.0.message.tool_calls.0.tool_call.id"]).toBe(x.toolCall.id);
    expect(a["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"]).toBe(x.toolCall.name);
    expect(a["llm.finish_reason"]).toBe("tool_use");
  });

  it("the HTML viewer: usage (prompt includes cached), model and the conversation by call id", () => {
    const viewed = (response: typeof f.response) => {
      const collector = new AtofSpanCollector();
      for (const e of llmEvents(f, response)) collector.add(e, "t.jsonl");
      return collector.spans().find((s) => s.kind === "llm")!;
    };
    const llm = viewed(f.response);
    expect(llm.usage).toEqual({
      promptTokens: x.usage.inputTokens,
      completionTokens: x.usage.outputTokens,
      totalTokens: x.usage.totalTokens,
    });
    expect(llm.model).toBe(x.responseModel);
    const messages = llm.messages!;
    if (x.system !== null) expect(messages[0]).toEqual({ role: "system", text: x.system });
    expect(messages.find((m) => m.toolCalls)!.toolCalls).toEqual([x.requestToolCall]);
    expect(messages.find((m) => m.role === "tool")).toEqual({ role: "tool", text: x.toolResult.text, toolCallId: x.toolResult.toolCallId });
    expect(messages.at(-1)).toEqual({ role: "assistant", text: x.text });
    expect(viewed(f.toolResponse).messages!.at(-1)!.toolCalls).toEqual([x.toolCall]);
  });

  it("ATIF: prompt_tokens include cached tokens; cached_tokens, message and model", () => {
    const [doc] = atofToAtif(llmEvents(f), { agent: { name: "a", version: "1" } });
    const step = doc!.steps.find((s) => s.source === "agent")!;
    expect(step.metrics?.prompt_tokens).toBe(x.usage.inputTokens);
    expect(step.metrics?.completion_tokens).toBe(x.usage.outputTokens);
    expect(step.metrics?.cached_tokens).toBe((x.usage.cacheReadTokens ?? 0) + (x.usage.cacheWriteTokens ?? 0));
    expect(step.message).toBe(x.text);
    expect(step.model_name).toBe(x.responseModel);
    expect(step.reasoning_content).toBe(x.reasoning);
  });
});
