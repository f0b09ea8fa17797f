// relaytrace's OTLP/HTTP protobuf body is byte for byte the one OpenTelemetry's own serializer
// writes, for spans of the real SDK with every kind of value, and for the spans of all three
// projections of a traced run.
import { SpanKind, SpanStatusCode, TraceFlags, createTraceState, type Link } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/index.js";
import { encodeTraceRequest } from "../../exporters/otel/otlp-trace-protobuf.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const LONG_ASCII = "x".repeat(5_000);
const LONG_UNICODE = "na\u00efve caf\u00e9 \u{1f600} ".repeat(400);

function otelBytes(spans: ReadableSpan[]): Buffer {
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
}

function ourBytes(spans: ReadableSpan[]): Buffer {
  return Buffer.from(encodeTraceRequest(spans));
}

/** Spans from the real SDK: two resources, two scopes, every attribute type, events, links, statuses and kinds. */
function sdkSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const resources = [
    resourceFromAttributes({ "service.name": "checkout", "deployment.environment": "test", "host.cpus": 2 }),
    resourceFromAttributes({ "service.name": "\u00e9tude" }),
  ];
  const spans: ReadableSpan[] = [];
  for (const resource of resources) {
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] });
    const tracers = [
      provider.getTracer("relaytrace", "0.3.0"),
      provider.getTracer("app", undefined, { schemaUrl: "https://opentelemetry.io/schemas/1.30.0" }),
    ];
    for (const tracer of tracers) {
      const link: Link = {
        context: {
          traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
          spanId: "00f067aa0ba902b7",
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
          traceState: createTraceState("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"),
        },
        attributes: { "link.kind": "follows", n: 3 },
      };
      const root = tracer.startSpan("root \u2014 \u00fcber", {
        kind: SpanKind.SERVER,
        links: [link],
        startTime: [1_764_800_000, 999_999_999],
      });
      root.setAttributes({
        short: "ok",
        empty: "",
        long: LONG_ASCII,
        unicode: LONG_UNICODE,
        shortUnicode: "\u00e9",
        loneSurrogate: "a\ud800b",
        yes: true,
        no: false,
        zero: 0,
        int: 42,
        negative: -7,
        big: 2 ** 40 + 3,
        hugeNegative: -(2 ** 50),
        float: 3.25,
        tiny: -1e-9,
        strings: ["a", LONG_ASCII.slice(0, 200), "\u00f1"],
        numbers: [1, 2.5, -3],
        flags: [true, false],
        none: [],
      });
      root.addEvent("retry", { attempt: 2, reason: "timeout" }, [1_764_800_001, 5]);
      root.addEvent("bare");
      root.setStatus({ code: SpanStatusCode.ERROR, message: "upstream \u00e9chec" });
      root.end([1_764_800_002, 0]);
      for (const kind of [SpanKind.INTERNAL, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER]) {
        const child = tracer.startSpan(`child ${kind}`, { kind, startTime: [4_102_444_800, 123] });
        child.setStatus({ code: SpanStatusCode.OK });
        child.end([4_102_444_800, 456]);
      }
    }
  }
  spans.push(...memory.getFinishedSpans());
  return spans;
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
      const rt = createRuntime();
      const capture = new SpanCapture({ projection });
      capture.register(rt);
      await rt.withScope(
        "agent",
        async () => {
          await rt.executeTool("search", { q: "caf\u00e9", long: LONG_ASCII }, () => ({ result: { hits: [1, 2, 3], note: LONG_UNICODE } }));
          await rt.executeLlm(
            "openai.chat_completions",
            { headers: {}, content: { model: "m", messages: [{ role: "user", content: "hi \u{1f600}" }] } },
            () => ({ model: "m", choices: [{ message: { role: "assistant", content: "hello" }, finish_reason: "stop" }] }),
            { modelName: "m" },
          );
          await rt
            .executeTool("fails", {}, () => {
              throw new Error("no route \u2014 r\u00e9essayer");
            })
            .catch(() => undefined);
        },
        { category: "agent" },
      );
      const spans = await capture.spans();
      await rt.shutdown();
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
