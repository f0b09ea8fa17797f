// What one OTLP/HTTP request comes to, and what carries it: the shapes OpenTelemetry's exporters
// use between their delivery and their transport, declared here so that relaytrace's span export
// needs no package of OpenTelemetry's exporters.

/** One request's outcome: sent (with the reply body), worth a retry (maybe when the collector said), or failed. */
export type ExportResponse =
  | { status: "success"; data?: Uint8Array }
  | { status: "failure"; error: Error }
  | { status: "retryable"; retryInMillis?: number; error?: Error };

/** Sends one encoded request; never throws, a failure is a response. */
export interface ExporterTransport {
  send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse>;
  shutdown(): void;
}

/** A collector's refusal: its status and reply body, as OpenTelemetry's `OTLPExporterError` carries them. */
export class OtlpExporterError extends Error {
  override readonly name = "OTLPExporterError";

  constructor(
    message: string | undefined,
    readonly code?: number,
    readonly data?: string,
  ) {
    super(message);
  }
}

/** The reply to a trace export: OTLP's ExportTraceServiceResponse. */
export interface TraceServiceResponse {
  partialSuccess?: { rejectedSpans?: number; errorMessage?: string };
}
