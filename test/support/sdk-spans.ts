// Spans from the real OpenTelemetry SDK in every shape an OTLP encoder must handle: two resources,
// two scopes (one with a schema URL), every attribute type, long and non-ASCII strings, events,
// links with trace state, statuses and kinds. The encoders' equality tests share them.
import { SpanKind, SpanStatusCode, TraceFlags, createTraceState, type Link } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { SpanCapture } from "../../exporters/testing/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";

export const LONG_ASCII = "x".repeat(5_000);
export const LONG_UNICODE = "na\u00efve caf\u00e9 \u{1f600} ".repeat(400);

/** Spans from the real SDK: two resources, two scopes, every attribute type, events, links, statuses and kinds. */
export function sdkSpans(): ReadableSpan[] {
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

/** The spans one projection makes of a traced run: a scope, a tool call, an LLM call and a failing tool, with long and non-ASCII values. */
export async function tracedRunSpans(projection: "full" | "openinference" | "gen_ai"): Promise<ReadableSpan[]> {
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
  return spans;
}
