// What bundles for browsers and Workers get in place of protobuf-span-exporter.ts (package.json
// "browser"): OpenTelemetry's exporter, whose browser build sends with fetch.
export { OTLPTraceExporter as ProtobufSpanExporter } from "@opentelemetry/exporter-trace-otlp-proto";
