// relaytrace's OTLP/HTTP JSON body is byte for byte the one OpenTelemetry's own JSON serializer
// writes, for spans of the real SDK with every kind of value and for the spans of all three
// projections of a traced run, so the JSON export needs no OpenTelemetry serializer.
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { encodeTraceRequestJson, nanosText } from "../../exporters/otel/otlp-trace-json.js";
import { sdkSpans, tracedRunSpans } from "../support/sdk-spans.js";

function otelText(spans: ReadableSpan[]): string {
  return Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString("utf8");
}

function ourText(spans: ReadableSpan[]): string {
  return Buffer.from(encodeTraceRequestJson(spans)).toString("utf8");
}

describe("OTLP/HTTP JSON encoding", () => {
  it("writes the same bytes as OpenTelemetry's serializer for SDK spans of every shape", () => {
    const spans = sdkSpans();
    expect(spans.length).toBe(20);
    expect(ourText(spans)).toBe(otelText(spans));
    for (const span of spans) expect(ourText([span])).toBe(otelText([span]));
    const many = Array.from({ length: 20 }, () => spans).flat();
    expect(ourText(many)).toBe(otelText(many));
  });

  it("writes the same bytes for the spans of every projection of a traced run", async () => {
    for (const projection of ["full", "openinference", "gen_ai"] as const) {
      const spans = await tracedRunSpans(projection);
      expect(spans.length).toBeGreaterThanOrEqual(4);
      expect(ourText(spans), projection).toBe(otelText(spans));
    }
  });

  it("writes nanosecond times exactly past 2^53, as decimal text", () => {
    expect(nanosText([1_764_800_000, 999_999_999])).toBe("1764800000999999999");
    expect(nanosText([4_102_444_800, 123])).toBe("4102444800000000123");
    expect(nanosText([0, 5])).toBe("5");
    expect(nanosText([1, 0])).toBe("1000000000");
  });

  it("writes a bounded body for a value nested past the attribute shapes", () => {
    expect(JSON.parse(ourText([]))).toEqual({ resourceSpans: [] });
    const [span] = sdkSpans();
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const hostile = { ...span!, attributes: { deep }, spanContext: () => span!.spanContext() } as unknown as ReadableSpan;
    expect(ourText([hostile]).length).toBeLessThan(10_000);
  });
});
