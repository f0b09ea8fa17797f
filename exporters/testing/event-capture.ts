import type { AtofEvent } from "../../src/events/types.js";
import type { ExporterRuntime } from "../exporter-runtime.js";

/** An in-memory subscriber: every delivered event, in delivery order. */
export class EventCapture {
  private readonly captured: AtofEvent[] = [];

  constructor(private readonly name = "testing:events") {}

  register(runtime: ExporterRuntime): () => boolean {
    return runtime.subscribe(this.name, (event) => {
      this.captured.push(event);
    });
  }

  /** A copy of the captured events (the events themselves are the runtime's frozen objects). */
  get events(): AtofEvent[] {
    return [...this.captured];
  }

  clear(): void {
    this.captured.length = 0;
  }
}
