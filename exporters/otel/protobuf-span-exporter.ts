import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { spanExport } from "#otlp-span-export";
import type { OtlpSpanExportConfig } from "./otlp-http-settings.js";
import { encodeTraceRequest } from "./otlp-trace-protobuf.js";
import { decodeTraceResponse } from "./otlp-trace-response.js";

// OTLP/HTTP protobuf span export: relaytrace's one-pass encoder (the bytes OpenTelemetry's
// serializer writes, at a fraction of the CPU) and reply decoder; no package of OpenTelemetry's
// exporters is needed.

/** The span exporter of `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` (the default). */
export function protobufSpanExporter(config: OtlpSpanExportConfig = {}): SpanExporter {
  return spanExport(config, "application/x-protobuf", { encode: encodeTraceRequest, decode: decodeTraceResponse });
}
