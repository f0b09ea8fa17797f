// The app's OpenTelemetry pipeline: its TracerProvider (resource, processors, sampler), the sampler
// option, and the standard OTEL_* variables, each with a test. Options in code win over variables.
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OtelExporter, type OtelExporterOptions } from "../../exporters/otel/index.js";
import { MAX_CONCURRENT_EXPORTS } from "../../exporters/otel/span-batcher.js";
import { RecordingSpanExporter } from "../../exporters/testing/index.js";
import { HeldSpanExporter } from "../support/held-span-exporter.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { attributesOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  receivers.push(r);
  return r;
}

/** One agent trace (agent → tool) through an exporter built from `options`; returns the exporter. */
async function oneTrace(options: OtelExporterOptions, runs = 1): Promise<OtelExporter> {
  const rt = createRuntime();
  const exporter = new OtelExporter(options);
  exporter.register(rt);
  for (let i = 0; i < runs; i++) {
    await rt.withScope("agent", () => rt.executeTool("lookup", { q: "a much longer argument" }, () => ({ result: "ok" })), {
      category: "agent",
      metadata: { a: 1, b: 2, c: 3, d: 4 },
    });
  }
  await rt.shutdown();
  return exporter;
}

function memory(): { spanExporter: RecordingSpanExporter; spans: ReadableSpan[] } {
  const spanExporter = new RecordingSpanExporter();
  return { spanExporter, spans: spanExporter.spans };
}

describe("the app's TracerProvider", () => {
  it("gives relaytrace spans the provider's resource and hands them to its span processors", async () => {
    const appExporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": "checkout", "deployment.environment.name": "test" }),
      spanProcessors: [new SimpleSpanProcessor(appExporter)],
    });
    await oneTrace({ projection: "gen_ai", tracerProvider: provider });
    const spans = appExporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(["execute_tool lookup", "invoke_agent agent"]);
    expect(spans.every((s) => s.resource.attributes["service.name"] === "checkout")).toBe(true);
    // relaytrace's shutdown left the app's provider running
    provider.getTracer("app").startSpan("after").end();
    expect(appExporter.getFinishedSpans().map((s) => s.name)).toContain("after");
    await provider.shutdown();
  });

  it("honours the provider's sampler at trace roots", async () => {
    const appExporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor(appExporter)] });
    await oneTrace({ projection: "full", tracerProvider: provider });
    expect(appExporter.getFinishedSpans()).toEqual([]);
    await provider.shutdown();
  });

  it("refuses something that is not an SDK provider, saying what it needs", () => {
    expect(() => new OtelExporter({ projection: "full", tracerProvider: { getTracer: () => ({}) } as never })).toThrow(
      /SDK 2\.x or 3\.x TracerProvider/,
    );
  });

  it("never shuts down a passed span processor's provider, but shuts down its own", async () => {
    const onShutdown = vi.fn(async () => {});
    const processor: SpanProcessor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: onShutdown };
    const provider = new NodeTracerProvider({ spanProcessors: [processor] });
    await oneTrace({ projection: "full", tracerProvider: provider });
    expect(onShutdown).not.toHaveBeenCalled();
  });
});

describe("sampling", () => {
  it("keeps or drops whole traces: the root's decision holds for every span, also across a halt and resume", async () => {
    const { spanExporter, spans } = memory();
    const rt = createRuntime();
    new OtelExporter({ projection: "full", spanExporter, sampler: new TraceIdRatioBasedSampler(0.5) }).register(rt);
    const traces: string[] = [];
    for (let i = 0; i < 40; i++) {
      const ctx = await rt.withScope(
        "first-part",
        async (scope) => {
          traces.push(scope.uuid.replace(/-/g, ""));
          await rt.executeTool("t", {}, () => ({ result: 1 }));
          return rt.capturePropagationContext();
        },
        { category: "agent" },
      );
      await rt.withPropagation(ctx, () =>
        rt.withScope("resumed-part", () => rt.executeTool("t2", {}, () => ({ result: 2 })), { category: "agent" }),
      );
    }
    await rt.shutdown();
    const byTrace = new Map<string, string[]>();
    for (const s of spans) byTrace.set(s.spanContext().traceId, [...(byTrace.get(s.spanContext().traceId) ?? []), s.name]);
    expect(byTrace.size).toBeGreaterThan(0);
    expect(byTrace.size).toBeLessThan(40);
    for (const names of byTrace.values()) expect(names.sort()).toEqual(["first-part", "resumed-part", "t", "t2"]);
  });

  it("defaults to OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG", async () => {
    vi.stubEnv("OTEL_TRACES_SAMPLER", "traceidratio");
    vi.stubEnv("OTEL_TRACES_SAMPLER_ARG", "0");
    const { spanExporter, spans } = memory();
    await oneTrace({ projection: "full", spanExporter }, 5);
    expect(spans).toEqual([]);
    vi.stubEnv("OTEL_TRACES_SAMPLER", "always_off");
    vi.stubEnv("OTEL_TRACES_SAMPLER_ARG", "");
    await oneTrace({ projection: "full", spanExporter });
    expect(spans).toEqual([]);
  });

  it("lets the sampler option win over the variable", async () => {
    vi.stubEnv("OTEL_TRACES_SAMPLER", "always_off");
    const { spanExporter, spans } = memory();
    await oneTrace({ projection: "full", spanExporter, sampler: new AlwaysOnSampler() });
    expect(spans).toHaveLength(2);
  });

  it("counts an unsupported sampler name and keeps the default", async () => {
    vi.stubEnv("OTEL_TRACES_SAMPLER", "jaeger_remote");
    const { spanExporter, spans } = memory();
    const exporter = await oneTrace({ projection: "full", spanExporter });
    expect(spans).toHaveLength(2);
    expect(exporter.diagnostics().map((d) => d.code)).toContain("otel.env_invalid");
  });
});

describe("standard variables", () => {
  it("OTEL_SDK_DISABLED=true: nothing is exported", async () => {
    vi.stubEnv("OTEL_SDK_DISABLED", "true");
    const { spanExporter, spans } = memory();
    const exporter = await oneTrace({ projection: "full", spanExporter });
    expect(exporter.disabled).toBe(true);
    expect(spans).toEqual([]);
  });

  it("OTEL_TRACES_EXPORTER=none sends nothing; console prints the spans; an endpoint in code still sends", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", `${r.url}/v1/traces`);
    vi.stubEnv("OTEL_TRACES_EXPORTER", "none");
    await oneTrace({ projection: "full" });
    expect(r.received).toEqual([]);
    await oneTrace({ projection: "full", endpoint: `${r.url}/v1/traces` });
    expect(r.received).toHaveLength(1);
    vi.stubEnv("OTEL_TRACES_EXPORTER", "console");
    const printed = vi.spyOn(console, "dir").mockImplementation(() => {});
    await oneTrace({ projection: "gen_ai" });
    expect(printed.mock.calls.map((c) => (c[0] as { name: string }).name)).toContain("invoke_agent agent");
  });

  it("OTEL_EXPORTER_OTLP_PROTOCOL / _TRACES_PROTOCOL pick the encoding (protobuf by default), the option wins", async () => {
    const r = await receiver();
    const endpoint = `${r.url}/v1/traces`;
    await oneTrace({ projection: "full", endpoint });
    vi.stubEnv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
    await oneTrace({ projection: "full", endpoint });
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf");
    await oneTrace({ projection: "full", endpoint });
    await oneTrace({ projection: "full", endpoint, protocol: "http/json" });
    expect(r.received.map((x) => x.contentType.split(";")[0])).toEqual([
      "application/x-protobuf",
      "application/json",
      "application/x-protobuf",
      "application/json",
    ]);
    expect(r.received.every((x) => spansOf(x.body).length === 2)).toBe(true);
  });

  it("grpc fails at construction with a clear message, from the option or the variable", () => {
    expect(() => new OtelExporter({ projection: "full", protocol: "grpc" as never })).toThrow(
      /"grpc" is not supported; use "http\/protobuf"/,
    );
    vi.stubEnv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
    expect(() => new OtelExporter({ projection: "full" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported/);
  });

  it("OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME shape the resource; serviceName and resourceAttributes in code win", async () => {
    vi.stubEnv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=staging,team=agents");
    vi.stubEnv("OTEL_SERVICE_NAME", "from-env");
    const { spanExporter, spans } = memory();
    await oneTrace({ projection: "full", spanExporter });
    expect(spans[0]!.resource.attributes).toMatchObject({
      "service.name": "from-env",
      "deployment.environment.name": "staging",
      team: "agents",
    });
    spans.length = 0;
    await oneTrace({ projection: "full", spanExporter, serviceName: "from-code", resourceAttributes: { team: "core" } });
    expect(spans[0]!.resource.attributes).toMatchObject({
      "service.name": "from-code",
      "deployment.environment.name": "staging",
      team: "core",
    });
  });

  it("OTEL_BSP_MAX_EXPORT_BATCH_SIZE bounds each export request; the option wins", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "1");
    await oneTrace({ projection: "full", endpoint: `${r.url}/v1/traces` }, 2);
    expect(r.received.map((x) => spansOf(x.body).length)).toEqual([1, 1, 1, 1]);
    r.received.length = 0;
    await oneTrace({ projection: "full", endpoint: `${r.url}/v1/traces`, maxExportBatchSize: 512 }, 2);
    expect(r.received.map((x) => spansOf(x.body).length)).toEqual([4]);
  });

  it("OTEL_BSP_MAX_QUEUE_SIZE bounds the queue: spans past it are dropped and counted", async () => {
    vi.stubEnv("OTEL_BSP_MAX_QUEUE_SIZE", "1");
    vi.stubEnv("OTEL_BSP_SCHEDULE_DELAY", "60000");
    const collector = new HeldSpanExporter(); // never answers: requests stay in flight
    const exporter = await oneTrace({ projection: "full", spanExporter: collector, timeoutMillis: 200 }, MAX_CONCURRENT_EXPORTS);
    // 2 spans per run; batches of 1 fill every slot, one span waits in the queue, the rest are dropped
    expect(collector.requests.length).toBe(MAX_CONCURRENT_EXPORTS + 1);
    expect(collector.requests.every((r) => r.length === 1)).toBe(true);
    expect(exporter.diagnostics().find((d) => d.code === "otel.spans_dropped")?.count).toBe(MAX_CONCURRENT_EXPORTS - 1);
  });

  it("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts long strings; OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT caps the attribute count", async () => {
    vi.stubEnv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "6");
    vi.stubEnv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "3");
    const r = await receiver();
    await oneTrace({ projection: "full", endpoint: `${r.url}/v1/traces` });
    const spans = spansOf(r.received[0]!.body);
    for (const span of spans) {
      const attrs = attributesOf(span["attributes"]);
      expect(Object.keys(attrs)).toHaveLength(3);
      for (const v of Object.values(attrs)) if (typeof v === "string") expect(v.length).toBeLessThanOrEqual(6);
      expect(Number(span["droppedAttributesCount"])).toBeGreaterThan(0);
    }
  });

  it("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL and OTEL_LOGS_EXPORTER / OTEL_METRICS_EXPORTER govern the other signals", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/json");
    vi.stubEnv("OTEL_METRICS_EXPORTER", "none");
    const rt = createRuntime();
    new OtelExporter({ projection: "full", endpoint: `${r.url}/v1/traces`, logs: true, metrics: true }).register(rt);
    await rt.withScope("a", () => rt.mark("m"), { category: "agent" });
    rt.metric("x", [{ name: "n", kind: "counter", valueType: "u64", value: 1 }]);
    await rt.shutdown();
    expect(r.received.map((x) => [x.path, x.contentType.split(";")[0]]).sort()).toEqual([
      ["/v1/logs", "application/json"],
      ["/v1/traces", "application/x-protobuf"],
    ]);
    vi.stubEnv("OTEL_LOGS_EXPORTER", "none");
    r.received.length = 0;
    const rt2 = createRuntime();
    new OtelExporter({ projection: "full", endpoint: `${r.url}/v1/traces`, logs: true }).register(rt2);
    await rt2.withScope("a", () => rt2.mark("m"), { category: "agent" });
    await rt2.shutdown();
    expect(r.received.map((x) => x.path)).toEqual(["/v1/traces"]);
  });
});
