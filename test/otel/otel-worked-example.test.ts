import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { ProjectionName, MarkProjectionSetting } from "../../exporters/otel/index.js";
import { A, HIDDEN_ROOT, M1, M2, SPAN_A, SPAN_M1, SPAN_M2, SPAN_T, T, TRACE_ID, workedExample } from "../support/otel-events.js";

async function project(projection: ProjectionName, markProjection?: MarkProjectionSetting): Promise<Map<string, ReadableSpan>> {
  const capture = new SpanCapture({ projection, ...(markProjection ? { markProjection } : {}) });
  for (const event of workedExample()) capture.onEvent(event);
  const spans = await capture.spans();
  await capture.shutdown();
  return new Map(spans.map((s) => [s.name, s]));
}

function us(span: ReadableSpan, which: "startTime" | "endTime"): bigint {
  const [s, ns] = span[which];
  return BigInt(s) * 1_000_000_000n + BigInt(ns);
}

describe("worked example (§6), full", () => {
  it("produces four spans with the byte-derived ids, parents and exact times", async () => {
    const spans = await project("full");
    expect([...spans.keys()].sort()).toEqual(["get_weather", "mark:audit.recorded", "mark:cache.lookup", "weather-agent"]);
    const a = spans.get("weather-agent")!;
    const t = spans.get("get_weather")!;
    const m1 = spans.get("mark:cache.lookup")!;
    const m2 = spans.get("mark:audit.recorded")!;
    for (const s of [a, t, m1, m2]) expect(s.spanContext().traceId).toBe(TRACE_ID);
    expect(a.spanContext().spanId).toBe(SPAN_A);
    expect(t.spanContext().spanId).toBe(SPAN_T);
    expect(m1.spanContext().spanId).toBe(SPAN_M1);
    expect(m2.spanContext().spanId).toBe(SPAN_M2);
    expect(a.parentSpanContext).toBeUndefined();
    expect(t.parentSpanContext?.spanId).toBe(SPAN_A);
    expect(m1.parentSpanContext?.spanId).toBe(SPAN_T);
    expect(m2.parentSpanContext?.spanId).toBe(SPAN_T);
    // exact µs → ns conversion
    expect(a.startTime).toEqual([1772366400, 1_000_000]);
    expect(a.endTime).toEqual([1772366401, 203_000_000]);
    expect(t.endTime).toEqual([1772366400, 977_311_000]);
    expect(m1.startTime).toEqual([1772366400, 977_312_000]);
    expect(m1.endTime).toEqual(m1.startTime);
    // conformance §7.2: a pending-mark span starts after the tool ended
    expect(us(m1, "startTime") > us(t, "endTime")).toBe(true);
    expect(a.kind).toBe(SpanKind.INTERNAL);
    expect(t.kind).toBe(SpanKind.CLIENT);
    expect(m1.kind).toBe(SpanKind.INTERNAL);
    expect(a.status.code).toBe(SpanStatusCode.OK);
    expect(t.status.code).toBe(SpanStatusCode.OK);
  });

  it("writes the agent span attributes", async () => {
    const a = (await project("full")).get("weather-agent")!;
    expect(a.attributes).toEqual({
      "nemo_relay.uuid": A,
      "nemo_relay.parent_uuid": HIDDEN_ROOT,
      "nemo_relay.scope_type": "agent",
      "nemo_relay.handle_attributes": "[]",
      "nemo_relay.start.data.prompt": "Weather in Oslo?",
      "nemo_relay.start.input.prompt": "Weather in Oslo?",
      "nemo_relay.start.metadata.session_id": "conv-42",
      "session.id": "conv-42",
      "nemo_relay.session.instance_id": HIDDEN_ROOT,
      "nemo_relay.end.metadata.session_id": "conv-42",
      "nemo_relay.end.metadata.otel.status_code": "OK",
    });
  });

  it("writes the tool span attributes with ONE annotation attribute", async () => {
    const t = (await project("full")).get("get_weather")!;
    expect(t.attributes).toEqual({
      "nemo_relay.uuid": T,
      "nemo_relay.parent_uuid": A,
      "nemo_relay.scope_type": "tool",
      "nemo_relay.tool_call_id": "call_9f2",
      "nemo_relay.handle_attributes": "[]",
      "nemo_relay.start.data.city": "Oslo",
      "nemo_relay.start.input.city": "Oslo",
      "nemo_relay.end.data.temp_c": 4,
      "nemo_relay.end.output.temp_c": 4,
      "nemo_relay.end.metadata.otel.status_code": "OK",
      "nemo_relay.tool.result.annotation": JSON.stringify({ cache: "hit", rank: 1 }),
    });
    expect(Object.keys(t.attributes).filter((k) => k.includes("annotation"))).toHaveLength(1);
  });

  it("writes the orphan mark spans", async () => {
    const spans = await project("full");
    expect(spans.get("mark:cache.lookup")!.attributes).toEqual({
      "nemo_relay.mark.uuid": M1,
      "nemo_relay.mark.parent_uuid": T,
      "nemo_relay.mark.data.hit": true,
      "nemo_relay.mark.metadata.nemo_relay.log.severity": "info",
      "nemo_relay.mark.category": "custom",
      "nemo_relay.mark.category_profile.subtype": "acme.cache",
      "nemo_relay.mark.orphan": true,
    });
    expect(spans.get("mark:audit.recorded")!.attributes).toEqual({
      "nemo_relay.mark.uuid": M2,
      "nemo_relay.mark.parent_uuid": T,
      "nemo_relay.mark.data.policy": "p1",
      "nemo_relay.mark.orphan": true,
    });
  });
});

describe("worked example (§6), openinference", () => {
  it("uses the same ids and names", async () => {
    const spans = await project("openinference");
    expect(spans.size).toBe(4);
    expect(spans.get("weather-agent")!.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_A });
    expect(spans.get("get_weather")!.spanContext().spanId).toBe(SPAN_T);
    expect(spans.get("mark:cache.lookup")!.spanContext().spanId).toBe(SPAN_M1);
    expect(spans.get("mark:audit.recorded")!.parentSpanContext?.spanId).toBe(SPAN_T);
  });

  it("writes the agent span attributes", async () => {
    const a = (await project("openinference")).get("weather-agent")!;
    expect(a.attributes).toEqual({
      "openinference.span.kind": "AGENT",
      "nemo_relay.uuid": A,
      "nemo_relay.parent_uuid": HIDDEN_ROOT,
      "nemo_relay.scope_type": "agent",
      "nemo_relay.handle_attributes": "[]",
      "nemo_relay.start.data.prompt": "Weather in Oslo?",
      "nemo_relay.start.input.prompt": "Weather in Oslo?",
      "input.value": '{"prompt":"Weather in Oslo?"}',
      "input.mime_type": "application/json",
      metadata: '{"session_id":"conv-42","otel.status_code":"OK"}',
      "openinference.metadata.session_id": "conv-42",
      "openinference.metadata.otel.status_code": "OK",
      "session.id": "conv-42",
      "nemo_relay.session.instance_id": HIDDEN_ROOT,
    });
    expect(Object.keys(a.attributes).some((k) => k.includes("start.metadata") || k.includes("end.metadata"))).toBe(false);
  });

  it("writes the tool span attributes", async () => {
    const t = (await project("openinference")).get("get_weather")!;
    expect(t.attributes).toEqual({
      "openinference.span.kind": "TOOL",
      "nemo_relay.uuid": T,
      "nemo_relay.parent_uuid": A,
      "nemo_relay.scope_type": "tool",
      "nemo_relay.handle_attributes": "[]",
      "nemo_relay.start.data.city": "Oslo",
      "nemo_relay.start.input.city": "Oslo",
      "nemo_relay.end.data.temp_c": 4,
      "nemo_relay.end.output.temp_c": 4,
      "tool_call.id": "call_9f2",
      "tool.name": "get_weather",
      "tool_call.function.name": "get_weather",
      "input.value": '{"city":"Oslo"}',
      "input.mime_type": "application/json",
      "tool.parameters": '{"city":"Oslo"}',
      "tool_call.function.arguments": '{"city":"Oslo"}',
      "output.value": '{"temp_c":4}',
      "output.mime_type": "application/json",
      metadata: '{"otel.status_code":"OK"}',
      "openinference.metadata.otel.status_code": "OK",
      "nemo_relay.tool.result.annotation": '{"cache":"hit","rank":1}',
    });
  });

  it("marks its orphan mark spans as CHAIN", async () => {
    const m1 = (await project("openinference")).get("mark:cache.lookup")!;
    expect(m1.attributes).toMatchObject({
      "openinference.span.kind": "CHAIN",
      "nemo_relay.mark.orphan": true,
      "nemo_relay.mark.uuid": M1,
      "nemo_relay.mark.category_profile.subtype": "acme.cache",
    });
  });
});

describe("worked example (§6), gen_ai", () => {
  it("produces two spans with standard attributes only", async () => {
    const spans = await project("gen_ai");
    expect([...spans.keys()].sort()).toEqual(["execute_tool get_weather", "invoke_agent weather-agent"]);
    const a = spans.get("invoke_agent weather-agent")!;
    const t = spans.get("execute_tool get_weather")!;
    expect(a.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_A });
    expect(t.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_T });
    expect(t.parentSpanContext?.spanId).toBe(SPAN_A);
    expect(a.kind).toBe(SpanKind.INTERNAL);
    expect(t.kind).toBe(SpanKind.INTERNAL);
    expect(a.status.code).toBe(SpanStatusCode.OK);
    expect(t.status.code).toBe(SpanStatusCode.OK);
    expect(a.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather-agent",
      "gen_ai.conversation.id": "conv-42",
    });
    expect(t.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "get_weather",
      "gen_ai.tool.call.id": "call_9f2",
      "gen_ai.tool.call.arguments": '{"city":"Oslo"}',
      "gen_ai.tool.call.result": '{"temp_c":4}',
    });
  });
});

describe('worked example with markProjection: "tool"', () => {
  it("full: mark spans keep ids and names, gain projection and scope_type, stay orphans", async () => {
    const spans = await project("full", "tool");
    const m1 = spans.get("mark:cache.lookup")!;
    expect(m1.spanContext().spanId).toBe(SPAN_M1);
    expect(m1.parentSpanContext?.spanId).toBe(SPAN_T);
    expect(m1.attributes).toMatchObject({
      "nemo_relay.mark.projection": "tool",
      "nemo_relay.scope_type": "tool",
      "nemo_relay.mark.orphan": true,
      "nemo_relay.mark.data.hit": true,
    });
    expect(spans.get("mark:audit.recorded")!.spanContext().spanId).toBe(SPAN_M2);
  });

  it("openinference: kind TOOL, tool.name, output.value", async () => {
    const m1 = (await project("openinference", "tool")).get("mark:cache.lookup")!;
    expect(m1.attributes).toMatchObject({
      "nemo_relay.mark.projection": "tool",
      "openinference.span.kind": "TOOL",
      "tool.name": "cache.lookup",
      "tool_call.function.name": "cache.lookup",
      "output.value": '{"hit":true}',
      "output.mime_type": "application/json",
      metadata: '{"nemo_relay.log.severity":"info"}',
      "nemo_relay.mark.orphan": true,
    });
  });

  it("gen_ai ignores it: still no mark spans", async () => {
    expect((await project("gen_ai", "tool")).size).toBe(2);
  });
});
