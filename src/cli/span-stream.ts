import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { OtelExporter } from "../../exporters/otel/otel-exporter.js";
import type { ProjectionName } from "../../exporters/otel/projection.js";
import type { AtofEvent } from "../events/types.js";

/** Diagnostics of the OTel exporter that mean a span or an event did not make it. */
const LOSS_CODES = new Set([
  "otel.event_failed",
  "otel.export_failed",
  "otel.flush_failed",
  "otel.shutdown_failed",
  "otel.spans_dropped",
  "otel.spans_not_exported",
]);

/** Events fed between two flushes: far below the export queue, so nothing waits long in it. */
const FLUSH_EVERY = 256;

/** Something went missing on the way from events to output: one line, exit status 1. */
export class DataLossError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DataLossError";
  }
}

/** Hands exported spans to whoever drains them, instead of keeping them all. */
class HandOffExporter implements SpanExporter {
  private pending: ReadableSpan[] = [];

  export(spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    for (const span of spans) this.pending.push(span);
    resultCallback({ code: 0 });
  }

  take(): ReadableSpan[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}

/**
 * Projects events (already in time order, possibly streamed from a file) to spans through the real
 * exporter without the lossy path: the export queue has no practical bound and is drained every
 * FLUSH_EVERY events, each batch handed to `onBatch` (backpressure: the next events wait until
 * the batch is handled). Throws DataLossError if the exporter still counted a loss.
 */
export async function projectSpans(
  events: Iterable<AtofEvent> | AsyncIterable<AtofEvent>,
  projection: ProjectionName,
  onBatch: (spans: ReadableSpan[]) => void | Promise<void>,
  options: { serviceName?: string } = {},
): Promise<number> {
  const sink = new HandOffExporter();
  const exporter = new OtelExporter({
    projection,
    ...(options.serviceName !== undefined ? { serviceName: options.serviceName } : {}),
    spanExporter: sink,
    scheduledDelayMillis: 60_000,
    // Never the bound that drops: the queue is drained every FLUSH_EVERY events, and what shutdown
    // adds at the end (spans a crashed producer left open) is already held in memory anyway.
    maxQueueSize: 2 ** 30,
    maxExportBatchSize: 512,
    timeoutMillis: 600_000,
  });
  let fed = 0;
  let spans = 0;
  const drain = async (): Promise<void> => {
    const batch = sink.take();
    spans += batch.length;
    if (batch.length > 0) await onBatch(batch);
  };
  for await (const event of events) {
    exporter.onEvent(event);
    if (++fed % FLUSH_EVERY === 0) {
      await exporter.forceFlush();
      await drain();
    }
  }
  await exporter.shutdown(); // ends spans a crashed producer left open, so nothing is lost
  await drain();
  const losses = exporter.diagnostics().filter((d) => LOSS_CODES.has(d.code));
  if (losses.length > 0) {
    throw new DataLossError(`output incomplete: ${losses.map((d) => `${d.code} ×${d.count} (${d.message})`).join("; ")}`);
  }
  return spans;
}
