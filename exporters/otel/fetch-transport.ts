import { OtlpExporterError, type ExportResponse, type ExporterTransport } from "./otlp-export-response.js";
import { isRetryableStatus, retryAfterMillis } from "./otlp-retry.js";

// One OTLP/HTTP request per export over `fetch`, for browsers and Workers (workerd): what
// OpenTelemetry's browser exporters send with, read as they read the reply.

/** A reply body larger than this is not kept: the export fails (OpenTelemetry's bound). */
const MAX_REPLY_BYTES = 4 * 1024 * 1024;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Sends each request with `fetch`, bounded by the timeout. */
export class FetchTransport implements ExporterTransport {
  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMillis);
    try {
      const res = await fetch(this.url, { method: "POST", headers: this.headers, body: data, signal: abort.signal });
      const body = new Uint8Array(await res.arrayBuffer());
      if (body.length > MAX_REPLY_BYTES) {
        return { status: "failure", error: new Error(`OTLP export response body exceeded size limit of ${MAX_REPLY_BYTES} bytes`) };
      }
      if (res.status >= 200 && res.status <= 299) return { status: "success", data: body };
      if (isRetryableStatus(res.status))
        return { status: "retryable", retryInMillis: retryAfterMillis(res.headers.get("retry-after") ?? undefined) };
      return { status: "failure", error: new OtlpExporterError(res.statusText, res.status, new TextDecoder().decode(body)) };
    } catch (error) {
      // A timeout, or a network failure: both may pass a moment later.
      return { status: "retryable", error: abort.signal.aborted ? new Error("Request timed out") : asError(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  shutdown(): void {}
}
