import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";

/** ExportResultCode.FAILED (a numeric enum in @opentelemetry/core, which is not a direct dependency). */
const FAILED = 1;
const SUCCESS = 0;

/**
 * Wraps the real SpanExporter so failed exports are counted in diagnostics instead of
 * surfacing in the app, and so the exporter can tell how many spans left the batch queue.
 */
export class CountingSpanExporter implements SpanExporter {
  /** Spans handed to `export` so far: the processor queue length is `enqueued - handedOff`. */
  handedOff = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly diagnostics: DiagnosticCounter,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: { code: number; error?: Error }) => void): void {
    this.handedOff += spans.length;
    try {
      this.inner.export(spans, (result) => {
        if (result.code !== SUCCESS) {
          this.diagnostics.record("otel.export_failed", `span export failed: ${result.error?.message ?? "unknown error"}`);
          this.diagnostics.record("otel.spans_not_exported", `${spans.length} span(s) in a failed export`, spans.length);
        }
        resultCallback(result);
      });
    } catch (error) {
      this.diagnostics.recordError("otel.export_failed", error);
      resultCallback({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
