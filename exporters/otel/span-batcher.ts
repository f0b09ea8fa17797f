import { context } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";

/** Export requests one exporter may have in flight at once (each up to `maxExportBatchSize` spans). */
export const MAX_CONCURRENT_EXPORTS = 16;

/** Default bound on the bytes of the spans waiting for export (their estimated encoded size). */
export const DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024;

export interface SpanBatcherSettings {
  maxQueueSize: number;
  /** Estimated bytes of the queued spans; past it spans are refused like a full queue. */
  maxQueueBytes?: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
  maxConcurrentExports?: number;
}

/**
 * relaytrace's own batch span processor. Like the SDK's BatchSpanProcessor it queues finished
 * spans (at most `maxQueueSize`), sends full batches at once and partial ones after
 * `scheduledDelayMillis`; unlike it, a full batch does not wait for the previous request to come
 * back: up to MAX_CONCURRENT_EXPORTS requests are in flight. One request at a time cannot keep up
 * with a fast sequential tool loop (a request needs several turns of the event loop, the loop
 * fills a batch in a fraction of one), and the queue then overflows at rates real apps reach.
 * A request that does not finish within `exportTimeoutMillis` frees its slot (counted).
 * Memory is bounded by count and by bytes: at most `maxQueueSize` queued spans whose estimated
 * size (`spanBytes`) adds up to at most `maxQueueBytes`, plus the batches in flight — a few
 * huge spans (whole conversations as attributes) cannot fill the memory a count bound allows.
 */
type PumpMode = "full" | "due";

/** One export request in flight: when it is given up on, and how it ends (once, whichever way). */
interface Request {
  deadline: number;
  finish: () => void;
}

export class SpanBatcher {
  private queue: ReadableSpan[] = [];
  /** The estimated size of each queued span, in queue order, and their sum. */
  private sizes: number[] = [];
  private queuedBytes = 0;
  private readonly maxQueueBytes: number;
  private readonly inFlight = new Map<Promise<void>, Request>();
  /** Spans taken from the queue into requests so far. */
  private taken = 0;
  /** Flushes waiting for a free slot: each sends its own spans once woken. */
  private slotWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly maxConcurrent: number;
  private stopped = false;
  /** Set while pump runs: an export that finishes synchronously inside it must not recurse. */
  private pumping = false;
  private shutdownPromise: Promise<void> | undefined;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly settings: SpanBatcherSettings,
    private readonly counter: DiagnosticCounter,
  ) {
    this.maxConcurrent = Math.max(1, settings.maxConcurrentExports ?? MAX_CONCURRENT_EXPORTS);
    this.maxQueueBytes = settings.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES;
  }

  /** Queues a finished span; false when the queue is full (the caller counts the drop). */
  offer(span: ReadableSpan): boolean {
    if (this.stopped) return true; // after shutdown spans are ignored, as the SDK does
    if (this.queue.length >= this.settings.maxQueueSize) return false;
    const bytes = spanBytes(span);
    // An empty queue takes any one span, so a single huge span still gets its chance to be sent.
    if (this.queue.length > 0 && this.queuedBytes + bytes > this.maxQueueBytes) return false;
    this.queue.push(span);
    this.sizes.push(bytes);
    this.queuedBytes += bytes;
    if (this.queue.length >= this.settings.maxExportBatchSize) this.pump("full");
    else if (this.timer === undefined) this.startTimer();
    return true;
  }

  /**
   * Sends everything queued now (still at most MAX_CONCURRENT_EXPORTS requests at a time: an
   * OTLP exporter refuses more) and resolves when those requests have been answered.
   */
  forceFlush(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight.size === 0) return Promise.resolve();
    return this.flushThrough(this.taken + this.queue.length);
  }

  /**
   * The caller sends the spans up to `target` itself, waiting for a free slot when all are taken,
   * then waits for every request in flight (those carrying its spans among them). A request is
   * started only by a caller that then waits for it, never from another request's answer: on
   * Cloudflare Workers I/O belongs to the request that started it and is cancelled when that
   * request ends, and a request waiting on nothing of its own is cancelled as idle.
   */
  private async flushThrough(target: number): Promise<void> {
    for (;;) {
      this.pump("due");
      if (this.taken >= target) break;
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    await this.allAnswered();
  }

  /**
   * Resolves once no request is in flight. A request never answered (its own timeout timer went
   * with the Workers request that started it) is given up on here at its deadline, by a timer of
   * the caller's own, so that its slot cannot stay taken.
   */
  private async allAnswered(): Promise<void> {
    while (this.inFlight.size > 0) {
      let next = Infinity;
      for (const { deadline } of this.inFlight.values()) next = Math.min(next, deadline);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const due = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, next - Date.now()));
        timer.unref();
      });
      await Promise.race([Promise.all(this.inFlight.keys()), due]);
      clearTimeout(timer);
      this.giveUpOverdue();
    }
  }

  /** Ends every request past its deadline, as its own timeout would have. */
  private giveUpOverdue(): void {
    const now = Date.now();
    for (const { deadline, finish } of [...this.inFlight.values()]) if (deadline <= now) finish();
  }

  /** Flushes, then shuts the exporter down; idempotent. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.forceFlush().then(() => {
      this.stopped = true;
      this.clearTimer();
      return this.exporter.shutdown();
    });
    return this.shutdownPromise;
  }

  /** `full`: sends full batches while a slot is free; `due` (the delay passed, or a flush waits): also the partial last one. */
  private pump(mode: PumpMode): void {
    if (this.pumping) return; // the running loop re-checks the slots on every turn
    if (this.inFlight.size >= this.maxConcurrent) this.giveUpOverdue();
    this.pumping = true;
    try {
      const batch = this.settings.maxExportBatchSize;
      while (this.queue.length >= batch && this.inFlight.size < this.maxConcurrent) this.send(this.take(batch));
      if (mode === "due" && this.queue.length > 0 && this.inFlight.size < this.maxConcurrent) this.send(this.take(batch));
    } finally {
      this.pumping = false;
    }
    if (this.queue.length === 0) this.clearTimer();
    else if (this.timer === undefined) this.startTimer();
  }

  private take(count: number): ReadableSpan[] {
    this.taken += Math.min(count, this.queue.length);
    if (this.queue.length <= count) {
      const all = this.queue;
      this.queue = [];
      this.sizes = [];
      this.queuedBytes = 0;
      return all;
    }
    for (const bytes of this.sizes.splice(0, count)) this.queuedBytes -= bytes;
    return this.queue.splice(0, count);
  }

  private send(spans: ReadableSpan[]): void {
    let finish!: () => void;
    const timeout = this.settings.exportTimeoutMillis;
    const giveUp = () => {
      this.counter.record("otel.export_failed", `span export gave up after ${timeout} ms`);
      finish();
    };
    const request = new Promise<void>((resolve) => {
      let settled = false;
      const timer = setTimeout(giveUp, timeout);
      timer.unref();
      finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(request);
        resolve();
        // A freed slot wakes the flushes waiting for one; each sends its spans itself.
        for (const wake of this.slotWaiters.splice(0)) wake();
      };
    });
    this.inFlight.set(request, { deadline: Date.now() + timeout, finish: giveUp });
    const run = (): void => {
      try {
        // The exporter's own requests must not become spans of an instrumented http client.
        context.with(suppressTracing(context.active()), () => this.exporter.export(spans, () => finish()));
      } catch (error) {
        this.counter.recordError("otel.export_failed", error);
        finish();
      }
    };
    const resource = spans[0]?.resource;
    if (resource?.asyncAttributesPending && resource.waitForAsyncAttributes) resource.waitForAsyncAttributes().then(run, run);
    else run();
  }

  private startTimer(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump("due");
    }, this.settings.scheduledDelayMillis);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Fixed cost of a span on the wire (ids, times, kind, status, scope), in bytes. */
const SPAN_OVERHEAD_BYTES = 128;

/**
 * A span's estimated encoded size: the overhead plus its attribute and event-attribute keys and
 * values (strings by length, other scalars 8 bytes). Linear in the attributes, no encoding.
 */
export function spanBytes(span: ReadableSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + span.name.length + attributesBytes(span.attributes);
  for (const event of span.events) bytes += event.name.length + 16 + attributesBytes(event.attributes);
  return bytes;
}

function attributesBytes(attributes: ReadableSpan["attributes"] | undefined): number {
  let bytes = 0;
  for (const key in attributes) {
    const value = attributes[key];
    bytes += key.length + (typeof value === "string" ? value.length : Array.isArray(value) ? arrayBytes(value) : 8);
  }
  return bytes;
}

function arrayBytes(values: readonly unknown[]): number {
  let bytes = 0;
  for (const v of values) bytes += typeof v === "string" ? v.length : 8;
  return bytes;
}
