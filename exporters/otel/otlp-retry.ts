import type { ExportResponse, ExporterTransport } from "./otlp-export-response.js";

// OpenTelemetry's retry policy for OTLP/HTTP (its exporters' retrying transport, which
// @opentelemetry/otlp-exporter-base does not export): up to 5 retries of a retryable reply, waiting
// what the collector's Retry-After says or else an exponential backoff (1 s, growing 1.5× per retry,
// capped at 5 s, ±20 % jitter), and never past the export's timeout.

const MAX_RETRIES = 5;
const INITIAL_BACKOFF_MILLIS = 1000;
const MAX_BACKOFF_MILLIS = 5000;
const BACKOFF_MULTIPLIER = 1.5;
const JITTER = 0.2;

/** The HTTP statuses OTLP/HTTP says a client retries: too many requests, bad gateway, unavailable, gateway timeout. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/**
 * A Retry-After header as milliseconds to wait, read as OpenTelemetry reads it: whole seconds
 * (0 or less: retry at once), else an HTTP date (past: at once); absent: undefined (backoff decides).
 */
export function retryAfterMillis(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number.parseInt(header, 10);
  if (Number.isInteger(seconds)) return seconds > 0 ? seconds * 1000 : -1;
  const delay = new Date(header).getTime() - Date.now();
  return delay >= 0 ? delay : 0;
}

function jittered(backoff: number): number {
  const factor = 1 + (Math.random() * 2 - 1) * JITTER;
  return Math.max(0, Math.min(backoff * factor, MAX_BACKOFF_MILLIS));
}

function after(millis: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, millis));
}

/** Sends through `inner`, retrying a retryable reply as OpenTelemetry's exporters do. */
export class RetryingTransport implements ExporterTransport {
  constructor(private readonly inner: ExporterTransport) {}

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const deadline = Date.now() + timeoutMillis;
    let backoff = INITIAL_BACKOFF_MILLIS;
    let response = await this.inner.send(data, timeoutMillis);
    for (let retries = 0; response.status === "retryable" && retries < MAX_RETRIES; retries++) {
      const wait = response.retryInMillis ?? jittered(backoff);
      backoff *= BACKOFF_MULTIPLIER;
      const remaining = deadline - Date.now();
      // A wait that ends past the deadline is not started: the export fails now, as retryable.
      if (wait > remaining) return response;
      await after(wait);
      // The retry gets what is left of the timeout (at least 1 ms: a timeout of 0 would mean none).
      response = await this.inner.send(data, Math.max(1, deadline - Date.now()));
    }
    return response;
  }

  shutdown(): void {
    this.inner.shutdown();
  }
}
