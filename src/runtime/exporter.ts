import type { Diagnostic } from "../wire/diagnostics.js";
import type { AtofEvent } from "../events/types.js";

/** What an exporter needs of a runtime: a subscription that carries its lifecycle, and the delivery barrier. */
export interface ExporterHost {
  subscribe(name: string, callback: (event: AtofEvent) => void | Promise<void>, options?: { exporter?: Exporter }): () => boolean;
  /** Every event emitted before the call has reached its subscribers. */
  flush(): Promise<void>;
}

/**
 * A subscriber with a lifecycle. `runtime.forceFlush()` reaches its `forceFlush`,
 * `runtime.shutdown()` its `forceFlush` then `shutdown`, and `runtime.diagnostics()` lists its
 * counted failures next to the runtime's own.
 */
export interface Exporter {
  /** Subscribes to `runtime`; returns the function that removes the subscription. */
  register(runtime: ExporterHost): () => void;
  /** Delivers and exports everything emitted so far. Never rejects for export failures. */
  forceFlush(): Promise<void>;
  /** Flushes and releases resources; a second call returns the first call's promise. */
  shutdown(): Promise<void>;
  diagnostics(): Diagnostic[];
}
