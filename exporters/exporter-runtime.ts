import type { AtofEvent } from "../src/events/types.js";
import type { Exporter, ExporterHost } from "../src/runtime/exporter.js";

/** The part of a runtime an exporter needs. */
export type ExporterRuntime = ExporterHost;

let instances = 0;

/**
 * An exporter's subscriptions: a subscriber name unique to the instance (so a file and a stream
 * ATOF sink, or an in-memory and an OTLP span exporter, can share a runtime), and the runtimes it
 * is registered on, whose delivery queues `forceFlush` drains first so that "flush" covers every
 * event emitted before it.
 */
export class ExporterRegistrations {
  private readonly name: string;
  private readonly runtimes = new Set<ExporterRuntime>();

  constructor(kind: string) {
    instances += 1;
    this.name = `${kind}#${instances}`;
  }

  register(runtime: ExporterRuntime, onEvent: (event: AtofEvent) => void, exporter: Exporter): () => boolean {
    const remove = runtime.subscribe(this.name, onEvent, { exporter });
    this.runtimes.add(runtime);
    return () => {
      this.runtimes.delete(runtime);
      return remove();
    };
  }

  /** Waits until every runtime this exporter listens to has delivered what was emitted so far. */
  async flushDelivery(): Promise<void> {
    await Promise.allSettled([...this.runtimes].map((runtime) => runtime.flush()));
  }
}
