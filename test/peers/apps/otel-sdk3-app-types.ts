// An SDK 3 app's TypeScript that hands relaytrace its OpenTelemetry objects: the global provider a
// started NodeSDK registered, its own provider, a sampler and its OTLP span exporter. The test
// compiles it with tsc --strict inside a fresh install of the app, against relaytrace's published
// declarations and the app's own OpenTelemetry types.
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { InMemorySpanExporter, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from "@opentelemetry/sdk-trace";
import { createRuntime } from "relaytrace";
import { OtelExporter, type OtelExporterOptions } from "relaytrace/exporters";

const sdk = new NodeSDK({ serviceName: "shop" });
sdk.start();
const provider = new TracerProvider({ sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) }) });

const joinsTheApp: OtelExporterOptions = { projection: "gen_ai", tracerProvider: trace.getTracerProvider() };
const ownProvider: OtelExporterOptions = { projection: "full", tracerProvider: provider };
const appExporter: OtelExporterOptions = {
  projection: "openinference",
  spanExporter: new OTLPTraceExporter({ url: "http://127.0.0.1:4318/v1/traces" }),
  sampler: new TraceIdRatioBasedSampler(0.25),
};

const runtime = createRuntime();
for (const options of [joinsTheApp, ownProvider, appExporter]) new OtelExporter(options).register(runtime);
new OtelExporter({ projection: "full", spanExporter: new InMemorySpanExporter() }).register(runtime);
await runtime.shutdown();
await sdk.shutdown();
