import { TraceFlags, type SpanContext } from "@opentelemetry/api";
import { propagatedRootOf } from "../../src/events/propagation-table.js";
import { spanIdFromUuid, traceIdFromUuid } from "./ids.js";
import type { OpenSpan } from "./open-span.js";

/** How many completed span contexts stay resolvable as parents of late children and marks. */
export const COMPLETED_CAPACITY = 4096;

export interface ResolvedParent {
  context: SpanContext;
  /** Set when the parent span is still open. */
  open?: OpenSpan;
}

/** Open spans by uuid plus an LRU of completed contexts: how a `parent_uuid` finds its parent span. */
export class SpanRegistry {
  readonly open = new Map<string, OpenSpan>();
  // Two generations instead of a strict LRU: O(1) without Map tombstone scans, and at least the
  // last COMPLETED_CAPACITY completed contexts stay resolvable (a hit is promoted to the new one).
  private recent = new Map<string, SpanContext>();
  private older = new Map<string, SpanContext>();

  /** `linked`: the remote parent a trace root's start event recorded, tried before the propagated table. */
  resolveParent(parentUuid: string | null, linked?: SpanContext): ResolvedParent | undefined {
    if (parentUuid === null || parentUuid === undefined) return linked ? { context: linked } : undefined;
    const open = this.open.get(parentUuid);
    if (open) return { context: open.context, open };
    const done = this.recent.get(parentUuid);
    if (done) return { context: done };
    const old = this.older.get(parentUuid);
    if (old) {
      this.remember(parentUuid, old); // refresh so a long-lived parent stays resolvable
      return { context: old };
    }
    if (linked) return { context: linked };
    const root = propagatedRootOf(parentUuid);
    if (root !== undefined) {
      return {
        context: {
          traceId: traceIdFromUuid(root),
          spanId: spanIdFromUuid(parentUuid),
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        },
      };
    }
    return undefined;
  }

  complete(span: OpenSpan): void {
    this.open.delete(span.uuid);
    this.remember(span.uuid, span.context);
  }

  /** Records a finished context (also used for mark spans so later children can find them). */
  remember(uuid: string, context: SpanContext): void {
    if (this.recent.size >= COMPLETED_CAPACITY) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(uuid, context);
  }
}
