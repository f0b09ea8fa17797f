/**
 * The remote trace a piece of work continues: the trace's root uuid, the remote parent the work
 * hangs under, and what the remote caller said about the trace (its sampled flag and
 * `tracestate`). It travels with the work's own scope context and, in memory only, on the events
 * whose parent is that remote parent, so exporters rebuild the remote parent span without any
 * process-wide table. It is never written to an ATOF file.
 */
export interface TraceLink {
  readonly rootUuid: string;
  readonly parentUuid: string;
  /** W3C trace flags the caller sent; absent when it sent none (then relaytrace samples as for its own traces). */
  readonly traceFlags?: number;
  readonly tracestate?: string;
}

/** The in-memory key of an event's trace link (a symbol: JSON never sees it). */
export const TRACE_LINK: unique symbol = Symbol.for("relaytrace.traceLink");

/** The trace link an event carries, if any. */
export function traceLinkOf(event: object): TraceLink | undefined {
  return (event as { [TRACE_LINK]?: TraceLink })[TRACE_LINK];
}

/** `link` when it links the trace rooted at `rootUuid` and carries what the caller said (flags, state). */
export function callerLink(link: TraceLink | undefined, rootUuid: string): TraceLink | undefined {
  return link !== undefined && link.rootUuid === rootUuid && (link.traceFlags !== undefined || link.tracestate !== undefined)
    ? link
    : undefined;
}
