import type { AtofEvent, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { RuntimeOptions } from "../../src/runtime/types.js";

export interface Captured {
  rt: Runtime;
  events: AtofEvent[];
  /** Flushes the runtime and returns what was delivered so far. */
  settle(): Promise<AtofEvent[]>;
}

/** A runtime with one in-memory subscriber. */
export function capturingRuntime(options?: RuntimeOptions): Captured {
  const rt = createRuntime(options);
  const events: AtofEvent[] = [];
  rt.subscribe("capture", (e) => {
    events.push(e);
  });
  return {
    rt,
    events,
    async settle() {
      await rt.flush();
      return events;
    },
  };
}

export function scopes(events: AtofEvent[]): ScopeEvent[] {
  return events.filter((e): e is ScopeEvent => e.kind === "scope");
}

export function marks(events: AtofEvent[]): MarkEvent[] {
  return events.filter((e): e is MarkEvent => e.kind === "mark");
}

/** A compact label per event, e.g. "start:tool:get_weather", "end:agent:run", "mark:cache.lookup". */
export function labels(events: AtofEvent[]): string[] {
  return events.map((e) => (e.kind === "mark" ? `mark:${e.name}` : `${e.scope_category}:${e.category}:${e.name}`));
}
