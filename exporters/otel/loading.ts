import { context, type Context } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { ExportResult } from "./counted-export.js";
import type { ExporterLoad } from "./transport.js";

// An OtelExporter is made synchronously, but the OpenTelemetry SDK parts of the signals it sends
// (the exporter of the chosen encoding, the logs and metrics SDKs) are imported in the
// background from its constructor. Until they are there, spans wait in the batch queue and log
// records and measurements in a bounded queue here; forceFlush() and shutdown() wait for them.

/** Calls that may wait for a logs or metrics pipeline still loading; past this they are dropped and counted. */
export const MAX_PENDING_CALLS = 4096;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `error` says a package is not installed (Node, Bun and Deno word it differently). */
function isMissingPackage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return true;
  return /cannot find (package|module)|module not found/i.test(errorText(error));
}

/** "npm install … to send …; " when a package of an optional signal is missing, else nothing. */
function installHint(load: ExporterLoad<unknown>, error: unknown): string {
  if (load.install === undefined || !isMissingPackage(error)) return "";
  return `npm install ${load.install.packages.join(" ")} to send ${load.install.purpose}; `;
}

/** An import begun at construction: its value once there, or a failure recorded once as `otel.load_failed`. */
class Loaded<T> {
  value: T | undefined;
  failure: Error | undefined;
  /** Resolves (never rejects) once the import succeeded or failed. */
  readonly settled: Promise<void>;

  constructor(load: ExporterLoad<T>, counter: DiagnosticCounter, consequence: string) {
    let started: Promise<T>;
    try {
      started = load.load();
    } catch (error) {
      started = Promise.reject(error);
    }
    this.settled = started.then(
      (value) => {
        this.value = value;
      },
      (error: unknown) => {
        this.failure = new Error(`could not load ${load.what} (${load.from}): ${errorText(error)}`, { cause: error });
        counter.record("otel.load_failed", `${this.failure.message}; ${installHint(load, error)}${consequence}`);
      },
    );
  }
}

/**
 * A span exporter still being imported. An export waits for it (in the context it was called in:
 * the batcher suppresses tracing there) and fails, counted like any failed export, if it never
 * loads.
 */
export class LoadingSpanExporter implements SpanExporter {
  private readonly loaded: Loaded<SpanExporter>;

  constructor(load: ExporterLoad<SpanExporter>, counter: DiagnosticCounter) {
    this.loaded = new Loaded(load, counter, "spans are not exported");
  }

  /** Resolves once the exporter is there or could not be loaded. */
  get ready(): Promise<void> {
    return this.loaded.settled;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const inner = this.loaded.value;
    if (inner !== undefined) {
      inner.export(spans, done);
      return;
    }
    const caller: Context = context.active();
    void this.loaded.settled.then(() => {
      const loaded = this.loaded.value;
      if (loaded === undefined) done({ code: 1, error: this.loaded.failure });
      else context.with(caller, () => loaded.export(spans, done));
    });
  }

  async forceFlush(): Promise<void> {
    await this.loaded.settled;
    await this.loaded.value?.forceFlush?.();
  }

  async shutdown(): Promise<void> {
    await this.loaded.settled;
    await this.loaded.value?.shutdown();
  }
}

/** What a deferred logs or metrics pipeline must offer once loaded. */
export interface SignalPipeline {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The diagnostics of one deferred signal. */
export interface DeferredCodes {
  /** Counted per call dropped while loading (the queue was full) or after the load failed. */
  dropped: string;
  /** e.g. "log record": what one call carries, for the messages. */
  what: string;
}

/**
 * A logs or metrics pipeline whose SDK is still being imported. `call` runs at once when it is
 * there; meanwhile calls queue in order (at most MAX_PENDING_CALLS, the rest counted as dropped)
 * and run as soon as it loads. Every call carries its own timestamps, so a late one records the
 * same data. If the import fails the queue is dropped and counted, and the signal stays off.
 */
export class DeferredSignal<T extends SignalPipeline> {
  private readonly loaded: Loaded<T>;
  private pending: ((pipeline: T) => void)[] = [];

  constructor(
    load: ExporterLoad<T>,
    private readonly counter: DiagnosticCounter,
    private readonly codes: DeferredCodes,
    private readonly maxPending = MAX_PENDING_CALLS,
  ) {
    this.loaded = new Loaded(load, counter, `no ${codes.what} is exported`);
    void this.loaded.settled.then(() => this.drain());
  }

  call(run: (pipeline: T) => void): void {
    const pipeline = this.loaded.value;
    if (pipeline !== undefined && this.pending.length === 0) {
      run(pipeline);
      return;
    }
    if (this.loaded.failure !== undefined) {
      this.counter.record(this.codes.dropped, `a ${this.codes.what} was dropped: ${this.loaded.failure.message}`);
      return;
    }
    if (this.pending.length >= this.maxPending) {
      this.counter.record(this.codes.dropped, `a ${this.codes.what} was dropped: ${this.maxPending} were waiting for the SDK to load`);
      return;
    }
    this.pending.push(run);
  }

  async forceFlush(): Promise<void> {
    await this.loaded.settled;
    await this.loaded.value?.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.loaded.settled;
    await this.loaded.value?.shutdown();
  }

  private drain(): void {
    const queued = this.pending;
    this.pending = [];
    const pipeline = this.loaded.value;
    if (pipeline === undefined) {
      if (queued.length > 0) {
        this.counter.record(
          this.codes.dropped,
          `${queued.length} ${this.codes.what}(s) dropped: ${this.loaded.failure?.message ?? "not loaded"}`,
          queued.length,
        );
      }
      return;
    }
    for (const run of queued) {
      try {
        run(pipeline);
      } catch (error) {
        this.counter.recordError("otel.event_failed", error);
      }
    }
  }
}
