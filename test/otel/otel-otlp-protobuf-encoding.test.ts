// relaytrace's OTLP/HTTP protobuf body is byte for byte the one OpenTelemetry's own serializer
// writes, for spans of the real SDK with every kind of value, and for the spans of all three
// projections of a traced run.
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { encodeTraceRequest } from "../../exporters/otel/otlp-trace-protobuf.js";
import { sdkSpans, tracedRunSpans } from "../support/sdk-spans.js";

function otelBytes(spans: ReadableSpan[]): Buffer {
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
}

function ourBytes(spans: ReadableSpan[]): Buffer {
  return Buffer.from(encodeTraceRequest(spans));
}

describe("OTLP/HTTP protobuf encoding", () => {
  it("writes the same bytes as OpenTelemetry's serializer for SDK spans of every shape", () => {
    const spans = sdkSpans();
    expect(spans.length).toBe(20);
    expect(ourBytes(spans).equals(otelBytes(spans))).toBe(true);
    // one span at a time, and a batch large enough to grow the buffer many times
    for (const span of spans) expect(ourBytes([span]).equals(otelBytes([span]))).toBe(true);
    const many = Array.from({ length: 50 }, () => spans).flat();
    expect(ourBytes(many).equals(otelBytes(many))).toBe(true);
  });

  it("writes the same bytes for the spans of every projection of a traced run", async () => {
    for (const projection of ["full", "openinference", "gen_ai"] as const) {
      const spans = await tracedRunSpans(projection);
      expect(spans.length).toBeGreaterThanOrEqual(4);
      expect(ourBytes(spans).equals(otelBytes(spans)), projection).toBe(true);
    }
  });

  it("writes an empty body for no spans, and a bounded one for a value nested past the attribute shapes", () => {
    expect(encodeTraceRequest([]).length).toBe(0);
    const [span] = sdkSpans();
    // a value no SDK accepts as an attribute: nested 100,000 deep, written down to a fixed depth
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const hostile = { ...span!, attributes: { deep }, spanContext: () => span!.spanContext() } as unknown as ReadableSpan;
    expect(encodeTraceRequest([hostile]).length).toBeLessThan(10_000);
  });
});
