// The TypeScript of an SDK 2 app with the trace SDK only (no sdk-node, no OTLP exporter, no logs
// or metrics SDK) that hands relaytrace its provider and sampler and turns the logs and metrics
// options on. The test compiles it with tsc --strict (no skipLibCheck) inside a fresh install of
// the app: relaytrace's published declarations must not need a package the app lacks.
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { createRuntime } from "relaytrace";
import { OtelExporter, type OtelExporterOptions } from "relaytrace/exporters";

const provider = new NodeTracerProvider({
  sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) }),
  spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
});
provider.register();

const joinsTheApp: OtelExporterOptions = { projection: "gen_ai", tracerProvider: trace.getTracerProvider() };
const ownPipeline: OtelExporterOptions = {
  projection: "full",
  endpoint: "http://127.0.0.1:4318/v1/traces",
  protocol: "http/json",
  sampler: new TraceIdRatioBasedSampler(0.25),
  logs: true,
  metrics: { exportIntervalMillis: 1000 },
};

const runtime = createRuntime();
for (const options of [joinsTheApp, ownPipeline]) new OtelExporter(options).register(runtime);
new OtelExporter({ projection: "full", spanExporter: new InMemorySpanExporter() }).register(runtime);
await runtime.shutdown();
await provider.shutdown();
