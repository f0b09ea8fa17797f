import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/**
 * OTLP/HTTP protobuf for test programs, until `OtelExporter` speaks protobuf itself: spans
 * serialized by OpenTelemetry's own protobuf serializer and POSTed to a traces URL. Phoenix
 * accepts nothing else.
 */
export class ProtobufSpanExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly url: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    const sent = fetch(this.url, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: body ?? new Uint8Array() })
      .then(async (response) => {
        await response.body?.cancel();
        done(response.ok ? { code: ExportResultCode.SUCCESS } : { code: ExportResultCode.FAILED, error: new Error(`OTLP ${response.status}`) });
      })
      .catch((error: unknown) => done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }));
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
  }
}
