import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

/** Keeps every exported span, also after shutdown (the SDK's InMemorySpanExporter clears itself then). */
export class RecordingSpanExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];

  export(spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    this.spans.push(...spans);
    resultCallback({ code: 0 });
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}

  reset(): void {
    this.spans.length = 0;
  }
}
