import { OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from "@opentelemetry/otlp-exporter-base/node-http";
import type { IExportTraceServiceResponse } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { encodeTraceRequest } from "./otlp-trace-protobuf.js";
import { decodeTraceResponse } from "./otlp-trace-response.js";

/** Where the spans go: unset fields fall to the `OTEL_EXPORTER_OTLP_*` variables, as in OpenTelemetry's exporter. */
export interface ProtobufSpanExporterConfig {
  url?: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
}

const serializer = {
  serializeRequest: (spans: ReadableSpan[]): Uint8Array => encodeTraceRequest(spans),
  deserializeResponse: (data: Uint8Array): IExportTraceServiceResponse => decodeTraceResponse(data),
};

/** What OpenTelemetry's exporter metrics count per request: its spans (OpenTelemetry's trace helper, which lives in its transformer). */
const spanCount = { name: "span" as const, countItems: (spans: ReadableSpan[]): number => spans.length };

/**
 * OTLP/HTTP protobuf span export: OpenTelemetry's own HTTP delivery (retries, timeouts,
 * compression, the standard variables, its self-observability metrics) with relaytrace's
 * one-pass encoder of the request body, which writes the same bytes at a fraction of the CPU, and
 * its own decoder of the reply.
 * Under a "browser" bundle condition, OpenTelemetry's exporter is used as it is.
 */
export class ProtobufSpanExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(config: ProtobufSpanExporterConfig = {}) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" }),
        serializer,
        "otlp_http_span_exporter",
        spanCount,
        undefined,
      ),
    );
  }
}
