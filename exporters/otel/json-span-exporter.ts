import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { spanExport } from "#otlp-span-export";
import type { TraceServiceResponse } from "./otlp-export-response.js";
import type { OtlpSpanExportConfig } from "./otlp-http-settings.js";
import { encodeTraceRequestJson } from "./otlp-trace-json.js";

// OTLP/HTTP JSON span export: relaytrace's encoder (the bytes OpenTelemetry's JSON serializer
// writes) over the same delivery as protobuf; no package of OpenTelemetry's exporters is needed.

const decoder = new TextDecoder();

/** The span exporter of `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`. */
export function jsonSpanExporter(config: OtlpSpanExportConfig = {}): SpanExporter {
  return spanExport(config, "application/json", {
    encode: encodeTraceRequestJson,
    decode: (reply) => JSON.parse(decoder.decode(reply)) as TraceServiceResponse,
  });
}
