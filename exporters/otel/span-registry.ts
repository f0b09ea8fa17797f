import { TraceFlags, createTraceState, type SpanContext } from "@opentelemetry/api";
import type { TraceLink } from "../../src/events/trace-link.js";
import { spanIdFromUuid, traceIdFromUuid } from "./ids.js";
import type { OpenSpan } from "./open-span.js";

/** How many completed span contexts stay resolvable as parents of late children and marks. */
export const COMPLETED_CAPACITY = 4096;

export interface ResolvedParent {
  context: SpanContext;
  /** Set when the parent span is still open. */
  open?: OpenSpan;
  /** Set for the remote W3C parent a trace was continued from (`extractTraceContext`): the sampler honours its decision. */
  fromCaller?: true;
}

/**
 * The last `capacity` completed contexts by uuid. Most spans are never looked up once completed
 * (their children came while they were open), so completing one only writes a ring slot; the
 * uuid index is brought up to date when a lookup needs it.
 */
class CompletedContexts {
  private readonly uuids: string[];
  private readonly contexts: SpanContext[];
  /** Contexts added so far; the ring holds the last `capacity` of them. */
  private added = 0;
  /** Ring entries [0, indexed) are in `index` (uuid → its latest entry number). */
  private indexed = 0;
  private readonly index = new Map<string, number>();

  constructor(private readonly capacity: number) {
    this.uuids = new Array<string>(capacity);
    this.contexts = new Array<SpanContext>(capacity);
  }

  add(uuid: string, context: SpanContext): void {
    const slot = this.added % this.capacity;
    this.uuids[slot] = uuid;
    this.contexts[slot] = context;
    this.added++;
  }

  get(uuid: string): SpanContext | undefined {
    this.catchUp();
    const entry = this.index.get(uuid);
    if (entry === undefined || this.added - entry > this.capacity) return undefined; // never added, or overwritten since
    const context = this.contexts[entry % this.capacity]!;
    if (this.added - entry > this.capacity >> 1) {
      // Refreshed, so a parent still in use stays resolvable.
      this.add(uuid, context);
      this.index.set(uuid, this.added - 1);
    }
    return context;
  }

  private catchUp(): void {
    if (this.index.size > 2 * this.capacity) {
      // Entries of overwritten slots pile up in the index: start it again from the live ones.
      this.index.clear();
      this.indexed = 0;
    }
    this.indexed = Math.max(this.indexed, this.added - this.capacity);
    for (; this.indexed < this.added; this.indexed++) this.index.set(this.uuids[this.indexed % this.capacity]!, this.indexed);
  }
}

/** Open spans by uuid plus the last completed contexts: how a `parent_uuid` finds its parent span. */
export class SpanRegistry {
  readonly open = new Map<string, OpenSpan>();
  private readonly completed = new CompletedContexts(COMPLETED_CAPACITY);
  /**
   * The last parent uuid found neither open nor completed (spans under the runtime's hidden
   * root all name it): asked again, it is not looked up again until a span or mark with that
   * uuid is added.
   */
  private unknownParent: string | undefined;

  /**
   * `linked`: the remote parent a trace root's start event recorded; `traceLink`: the remote trace
   * the event continues (`withPropagation`), tried after it.
   */
  resolveParent(parentUuid: string | null, linked?: SpanContext, traceLink?: TraceLink): ResolvedParent | undefined {
    if (parentUuid === null || parentUuid === undefined) return linked ? { context: linked } : undefined;
    if (parentUuid !== this.unknownParent) {
      const open = this.open.get(parentUuid);
      if (open) return { context: open.context, open };
      const done = this.completed.get(parentUuid);
      if (done) return { context: done };
      this.unknownParent = parentUuid;
    }
    if (linked) return { context: linked };
    if (traceLink !== undefined && traceLink.parentUuid === parentUuid) {
      // Sampled unless the remote parent the trace continues said otherwise (`extractTraceContext`).
      const fromCaller = traceLink.traceFlags !== undefined || traceLink.tracestate !== undefined;
      const context: SpanContext = {
        traceId: traceIdFromUuid(traceLink.rootUuid),
        spanId: spanIdFromUuid(parentUuid),
        traceFlags: fromCaller ? (traceLink.traceFlags ?? 1) & TraceFlags.SAMPLED : TraceFlags.SAMPLED,
        isRemote: true,
      };
      if (traceLink.tracestate !== undefined) context.traceState = createTraceState(traceLink.tracestate);
      return fromCaller ? { context, fromCaller: true } : { context };
    }
    return undefined;
  }

  /** Registers a span that just started. */
  add(span: OpenSpan): void {
    if (span.uuid === this.unknownParent) this.unknownParent = undefined;
    this.open.set(span.uuid, span);
  }

  complete(span: OpenSpan): void {
    this.open.delete(span.uuid);
    this.completed.add(span.uuid, span.context);
  }

  /** Records a finished context (also used for mark spans so later children can find them). */
  remember(uuid: string, context: SpanContext): void {
    if (uuid === this.unknownParent) this.unknownParent = undefined;
    this.completed.add(uuid, context);
  }
}
