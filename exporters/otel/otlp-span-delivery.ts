import { diag } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { ExportResult } from "./counted-export.js";
import type { ExporterTransport, TraceServiceResponse } from "./otlp-export-response.js";

// The delivery of relaytrace's OTLP/HTTP span export, as OpenTelemetry's export delegate does it:
// a bound on the exports in flight, one request per export (the transport retries it), a reply
// read for its partial success (told to OpenTelemetry's diag logger), and a malformed reply still
// counted as a delivery (the collector took the request).

/** How a request is encoded and its reply decoded (protobuf or JSON). */
export interface SpanEncoding {
  encode(spans: readonly ReadableSpan[]): Uint8Array;
  decode(reply: Uint8Array): TraceServiceResponse;
}

const SUCCESS = 0;
const FAILED = 1;

/** A span exporter that sends each export as one OTLP/HTTP request through `transport`. */
export class OtlpSpanDelivery implements SpanExporter {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly encoding: SpanEncoding,
    private readonly transport: ExporterTransport,
    private readonly timeoutMillis: number,
    private readonly concurrencyLimit: number,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.inFlight.size >= this.concurrencyLimit) {
      done({ code: FAILED, error: new Error("Concurrent export limit reached") });
      return;
    }
    let body: Uint8Array;
    try {
      body = this.encoding.encode(spans);
    } catch (error) {
      done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      return;
    }
    const sending: Promise<void> = this.transport.send(body, this.timeoutMillis).then(
      (response) => {
        if (response.status === "success") {
          if (response.data !== undefined && response.data.length > 0) this.readReply(response.data);
          done({ code: SUCCESS });
        } else if (response.status === "failure") {
          done({ code: FAILED, error: response.error });
        } else {
          done({ code: FAILED, error: response.error ?? new Error("Export failed with retryable status") });
        }
      },
      (error: unknown) => done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.transport.shutdown();
  }

  private readReply(data: Uint8Array): void {
    let reply: TraceServiceResponse;
    try {
      reply = this.encoding.decode(data);
    } catch (error) {
      diag.warn("Export succeeded but could not deserialize response - is the response specification compliant?", error);
      return;
    }
    // An empty partial success is no partial success (the OTLP specification).
    const partial = reply.partialSuccess;
    if (partial !== undefined && partial !== null && Object.keys(partial).length > 0) {
      diag.warn("Received Partial Success response:", JSON.stringify(partial));
    }
  }
}
