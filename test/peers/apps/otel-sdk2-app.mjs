// An app on OpenTelemetry JS SDK 2 (@opentelemetry/sdk-node 0.2xx, sdk-trace-base 2.x):
// `node otel-sdk2-app.mjs SCENARIO` inside its install (see otel-app-scenarios.mjs).
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { runScenario } from "./otel-app-scenarios.mjs";

await runScenario({
  simpleProcessor: (exporter) => new SimpleSpanProcessor(exporter),
  tracerProvider: (sampler, exporter) => new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  AlwaysOffSampler,
  AlwaysOnSampler,
});
