// An app on OpenTelemetry JS SDK 3 (@opentelemetry/sdk-node 0.301 and later, @opentelemetry/sdk-trace 3.x):
// `node otel-sdk3-app.mjs SCENARIO` inside its install (see otel-app-scenarios.mjs).
import { AlwaysOffSampler, AlwaysOnSampler, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { runScenario } from "./otel-app-scenarios.mjs";

await runScenario({
  simpleProcessor: (exporter) => new SimpleSpanProcessor({ exporter }),
  tracerProvider: (sampler, exporter) => new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  AlwaysOffSampler,
  AlwaysOnSampler,
});
