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

/**
 * The start-event metadata key that records the link in the file itself, so a reader of the ATOF
 * file (`relaytrace convert`, another process) puts the work in the same trace whatever the order
 * of the events in time: a resumed run whose clock is behind the first one's still joins its trace.
 */
export const META_TRACE_LINK = "relaytrace.trace_link";

/** The trace link an event carries: in memory, else the one its start recorded (`META_TRACE_LINK`). */
export function traceLinkOf(event: object): TraceLink | undefined {
  return (event as { [TRACE_LINK]?: TraceLink })[TRACE_LINK] ?? recordedTraceLink(event as { parent_uuid?: unknown; metadata?: unknown });
}

function recordedTraceLink(event: { parent_uuid?: unknown; metadata?: unknown }): TraceLink | undefined {
  const metadata = event.metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return undefined;
  const recorded = (metadata as Record<string, unknown>)[META_TRACE_LINK];
  if (typeof recorded !== "object" || recorded === null || typeof event.parent_uuid !== "string") return undefined;
  const { root_uuid: rootUuid, trace_flags: traceFlags, tracestate } = recorded as Record<string, unknown>;
  if (typeof rootUuid !== "string" || rootUuid === "") return undefined;
  const link: { -readonly [K in keyof TraceLink]: TraceLink[K] } = { rootUuid, parentUuid: event.parent_uuid };
  if (typeof traceFlags === "number" && Number.isInteger(traceFlags) && traceFlags >= 0 && traceFlags <= 255) link.traceFlags = traceFlags;
  if (typeof tracestate === "string" && tracestate !== "") link.tracestate = tracestate;
  return link;
}

/** The link as start metadata records it: `{root_uuid, trace_flags?, tracestate?}` (the parent is the event's own). */
export function recordableTraceLink(link: TraceLink): Record<string, string | number> {
  const out: Record<string, string | number> = { root_uuid: link.rootUuid };
  if (link.traceFlags !== undefined) out["trace_flags"] = link.traceFlags;
  if (link.tracestate !== undefined) out["tracestate"] = link.tracestate;
  return out;
}

/** `link` when it links the trace rooted at `rootUuid` and carries what the caller said (flags, state). */
export function callerLink(link: TraceLink | undefined, rootUuid: string): TraceLink | undefined {
  return link !== undefined && link.rootUuid === rootUuid && (link.traceFlags !== undefined || link.tracestate !== undefined)
    ? link
    : undefined;
}
