/**
 * W3C Trace Context `traceparent` text, and the start-event metadata keys that record a trace
 * root's remote OpenTelemetry parent (so a file read back later rebuilds the same parent).
 */

/** Start-event metadata key holding the remote OpenTelemetry parent of a trace root (W3C `traceparent`). */
export const TRACEPARENT_KEY = "otel.traceparent";
/** Start-event metadata key holding that parent's W3C `tracestate`, when it has one. */
export const TRACESTATE_KEY = "otel.tracestate";

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
const SAMPLED = 1;

/** A parsed W3C `traceparent` (and `tracestate`). */
export interface RemoteParent {
  traceId: string;
  spanId: string;
  /** Only the sampled bit (1) is kept. */
  traceFlags: number;
  tracestate?: string;
}

/** Parses a W3C `traceparent`; undefined when it is malformed or names the invalid ids. */
export function parseTraceparent(value: string, tracestate?: string): RemoteParent | undefined {
  const match = TRACEPARENT_RE.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const parent: RemoteParent = { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) & SAMPLED };
  if (tracestate !== undefined && tracestate.trim() !== "") parent.tracestate = tracestate.trim();
  return parent;
}

export function formatTraceparent(traceId: string, spanId: string, traceFlags: number): string {
  return `00-${traceId}-${spanId}-${(traceFlags & SAMPLED) === SAMPLED ? "01" : "00"}`;
}
