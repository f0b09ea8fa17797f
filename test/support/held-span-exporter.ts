import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/** A collector that has not answered yet: every export waits until `release()`; `requests` is what was sent. */
export class HeldSpanExporter implements SpanExporter {
  readonly requests: ReadableSpan[][] = [];
  private readonly waiting: Array<(result: { code: number }) => void> = [];

  export(spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    this.requests.push(spans);
    this.waiting.push(resultCallback);
  }

  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.waiting.length;
  }

  /** Answers every waiting request with success. */
  release(): void {
    for (const done of this.waiting.splice(0)) done({ code: 0 });
  }

  get spans(): ReadableSpan[] {
    return this.requests.flat();
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}
