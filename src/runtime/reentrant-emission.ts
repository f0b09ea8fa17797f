import type { DiagnosticCounter } from "../wire/diagnostics.js";

/**
 * How deep events emitted from inside callbacks (subscribers, injectors, sanitizers) may chain:
 * an event a subscriber emits for an app event has depth 1, one emitted for that one depth 2.
 */
export const MAX_REENTRANT_DEPTH = 8;
/** How many events may descend from one app event through callbacks that emit, over all depths. */
export const MAX_REENTRANT_EVENTS = 256;

/** The events that descend from one app event through callbacks that emit (a subscriber that marks). */
export interface Lineage {
  emitted: number;
}

/** Where a publication stands in its chain of emissions. */
export interface Descent {
  /** 0 for an event the app emitted; n for one a callback emitted while delivering an event of depth n - 1. */
  depth: number;
  /** What events emitted from callbacks while delivering this one (and their own) share; made on first use. */
  lineage: Lineage | undefined;
}

/**
 * The bounds on events emitted from inside callbacks (MAX_REENTRANT_DEPTH, MAX_REENTRANT_EVENTS),
 * so that a subscriber that emits for every event it receives cannot keep the dispatcher busy
 * forever. What a bound cuts is counted as `reentrant_emission_cut`.
 */
export class ReentrantEmissions {
  private reportingCut = false;

  constructor(private readonly diagnostics: DiagnosticCounter) {}

  /**
   * Places `child`, emitted while `parent` was delivered, in `parent`'s chain; false (and counted,
   * naming the callback `kind` `name` that emitted it) when a bound cuts it.
   */
  admit(parent: Descent, child: Descent, event: string, kind: string, name: string): boolean {
    const depth = parent.depth + 1;
    const lineage = (parent.lineage ??= { emitted: 0 });
    if (depth > MAX_REENTRANT_DEPTH || lineage.emitted >= MAX_REENTRANT_EVENTS) {
      this.cut(event, depth, kind, name);
      return false;
    }
    lineage.emitted++;
    child.depth = depth;
    child.lineage = lineage;
    return true;
  }

  private cut(event: string, depth: number, kind: string, name: string): void {
    // A diagnostic listener that emits would be cut in turn, and report that, without end.
    if (this.reportingCut) return;
    const why =
      depth > MAX_REENTRANT_DEPTH
        ? `chain of events emitted from callbacks deeper than ${MAX_REENTRANT_DEPTH}`
        : `more than ${MAX_REENTRANT_EVENTS} events emitted from callbacks for one event`;
    const where = kind === "" ? "a callback" : `${kind} ${name}`.trim();
    this.reportingCut = true;
    try {
      this.diagnostics.record(
        "reentrant_emission_cut",
        `event ${event} emitted from inside ${where} dropped: ${why} (a callback that emits for every event it receives)`,
      );
    } finally {
      this.reportingCut = false;
    }
  }
}
