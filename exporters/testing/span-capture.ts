import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { AtofEvent } from "../../src/events/types.js";
import type { Diagnostic } from "../../src/wire/diagnostics.js";
import type { Exporter } from "../../src/runtime/exporter.js";
import { RecordingSpanExporter } from "./recording-span-exporter.js";
import { OtelExporter, type OtelExporterOptions, type SubscribableRuntime } from "../otel/otel-exporter.js";

/** `OtelExporter` options without the transport ones: spans always go to memory. */
export type SpanCaptureOptions = Omit<OtelExporterOptions, "spanExporter" | "endpoint" | "headers">;

/** An OtelExporter over an in-memory span exporter (spans survive shutdown): what a test snapshots. */
export class SpanCapture implements Exporter {
  readonly exporter: OtelExporter;
  private readonly memory = new RecordingSpanExporter();

  constructor(options: SpanCaptureOptions) {
    // A long delay: spans leave only on flush, so a test sees all of them at once.
    this.exporter = new OtelExporter({ scheduledDelayMillis: 60_000, ...options, spanExporter: this.memory });
  }

  register(runtime: SubscribableRuntime): () => boolean {
    return this.exporter.register(runtime);
  }

  /** Feeds one event directly (without a runtime). */
  onEvent(event: AtofEvent): void {
    this.exporter.onEvent(event);
  }

  /** Flushes, then returns every finished span so far in export order. */
  async spans(): Promise<ReadableSpan[]> {
    await this.exporter.forceFlush();
    return [...this.memory.spans];
  }

  /** Forgets the spans captured so far. */
  reset(): void {
    this.memory.reset();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  diagnostics(): Diagnostic[] {
    return this.exporter.diagnostics();
  }
}
