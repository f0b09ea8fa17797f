// One cold start of OpenTelemetry's Node SDK doing what cold-relaytrace.mjs does: import, a started
// NodeSDK whose batch processor sends OTLP/HTTP protobuf to the loopback receiver (argv[2]), one
// manual span, forceFlush. Prints the times as one JSON line.
const started = performance.now();
const { NodeSDK } = await import("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = await import("@opentelemetry/sdk-trace");
const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
const { trace } = await import("@opentelemetry/api");
const imported = performance.now();
const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: process.argv[2] }) });
const sdk = new NodeSDK({ spanProcessors: [processor], instrumentations: [] });
sdk.start();
trace.getTracer("bench").startActiveSpan("lookup_weather", (span) => {
  span.setAttribute("city", "Paris");
  span.end();
});
await processor.forceFlush();
const flushed = performance.now();
console.log(JSON.stringify({ importMs: imported - started, totalMs: flushed - started, sinceProcessStartMs: flushed, failed: false }));
process.exit(0);
