import { createOtlpNetworkExportDelegate, OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExporterMetrics } from "@opentelemetry/otlp-exporter-base/node-http";
import type { IExportTraceServiceResponse } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { NodeHttpTransport } from "./node-http-transport.js";
import { RetryingTransport } from "./otlp-retry.js";
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
 * OTLP/HTTP protobuf span export in Node. OpenTelemetry's parts do what they do in its own
 * exporter: the settings (code, then the standard variables, then the defaults), the export
 * delegate (concurrency bound, timeout, partial-success replies) and its self-observability
 * metrics. relaytrace supplies the rest: a one-pass encoder of the request body (the same bytes
 * at a fraction of the CPU), a decoder of the reply, OpenTelemetry's retry policy, and a transport
 * that reaches Node's http module without loading what an ES-module import of it loads.
 * Under a "browser" bundle condition, OpenTelemetry's exporter is used as it is.
 */
export class ProtobufSpanExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(config: ProtobufSpanExporterConfig = {}) {
    const settings = convertLegacyHttpOptions(config, "TRACES", "v1/traces", { "Content-Type": "application/x-protobuf" });
    super(
      createOtlpNetworkExportDelegate(
        settings,
        serializer,
        createOtlpHttpExporterMetrics("otlp_http_span_exporter", spanCount, settings.url, undefined),
        new RetryingTransport(new NodeHttpTransport(settings)),
      ),
    );
  }
}
