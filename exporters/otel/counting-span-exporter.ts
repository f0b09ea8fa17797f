import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";

import { countedExport, type ExportResult } from "./counted-export.js";

const SPAN_CODES = { failed: "otel.export_failed", lost: "otel.spans_not_exported", what: "span" };

/** Wraps the real SpanExporter so failed exports are counted in diagnostics instead of surfacing in the app. */
export class CountingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly diagnostics: DiagnosticCounter,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    countedExport((done) => this.inner.export(spans, done), spans.length, resultCallback, this.diagnostics, SPAN_CODES);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
