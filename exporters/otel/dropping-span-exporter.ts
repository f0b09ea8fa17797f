import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/** Stands in for an unusable endpoint: accepts and discards spans (the failure is already counted). */
export class DroppingSpanExporter implements SpanExporter {
  export(_spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    resultCallback({ code: 0 });
  }

  async shutdown(): Promise<void> {}
}
