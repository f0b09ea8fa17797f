import { SpanKind, SpanStatusCode, type AttributeValue, type Attributes, type HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { TokenTable, UUID_PATTERN } from "./tokens.js";

/** How `toSnapshot` renders times; see `SnapshotOptions.times`. */
export type SnapshotTimes = "tokens" | "offsets" | "none";

/** Options of `toSnapshot`. */
export interface SnapshotOptions {
  /**
   * `tokens` (default): each distinct instant becomes `<t-N>` by rank, so order survives but
   * values do not; `offsets`: microseconds since the earliest span start (use with a test clock);
   * `none`: no times.
   */
  times?: SnapshotTimes;
}

/** An attribute value in a snapshot (uuids replaced by tokens). */
export type SnapshotValue = string | number | boolean | Array<string | number | boolean | null> | null;

/** One span in a snapshot: ids as tokens, kind and status by name, attributes sorted by key. */
export interface SpanSnapshot {
  name: string;
  kind: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  start?: string | number;
  end?: string | number;
  status: { code: string; message?: string };
  attributes: Record<string, SnapshotValue>;
  events: Array<{ name: string; time?: string | number; attributes: Record<string, SnapshotValue> }>;
}

/** What `toSnapshot` returns: the spans in export order. */
export interface TraceSnapshot {
  spans: SpanSnapshot[];
}

/** HrTime → epoch microseconds (exact for times built from microseconds). */
export function microsOf(time: HrTime): number {
  return time[0] * 1_000_000 + Math.floor(time[1] / 1000);
}

export function kindName(kind: SpanKind): string {
  return SpanKind[kind] ?? String(kind);
}

export function statusName(code: SpanStatusCode): string {
  return SpanStatusCode[code] ?? String(code);
}

/**
 * A normalized, JSON-able view of spans for `toMatchSnapshot()`: trace/span ids and uuids inside
 * attribute values become tokens in order of first appearance, attributes are sorted by key.
 */
export function toSnapshot(spans: readonly ReadableSpan[], options: SnapshotOptions = {}): TraceSnapshot {
  const times = options.times ?? "tokens";
  const traces = new TokenTable("trace");
  const spanIds = new TokenTable("span");
  const uuids = new TokenTable("uuid");
  const instants = collectInstants(spans);
  const rank = new Map(instants.map((us, i) => [us, `<t-${i + 1}>`]));
  const origin = instants[0] ?? 0;
  const time = (t: HrTime): string | number | undefined => {
    if (times === "none") return undefined;
    const us = microsOf(t);
    return times === "offsets" ? us - origin : rank.get(us)!;
  };
  const value = (v: AttributeValue | undefined): SnapshotValue => {
    if (v === undefined) return null;
    if (typeof v === "string") return v.replace(UUID_PATTERN, (u) => uuids.get(u.toLowerCase()));
    if (Array.isArray(v))
      return v.map((x) => (typeof x === "string" ? x.replace(UUID_PATTERN, (u) => uuids.get(u.toLowerCase())) : (x ?? null)));
    return v as number | boolean;
  };
  const attributes = (attrs: Attributes | undefined): Record<string, SnapshotValue> => {
    const out: Record<string, SnapshotValue> = {};
    for (const key of Object.keys(attrs ?? {}).sort()) out[key] = value(attrs![key]);
    return out;
  };
  return {
    spans: spans.map((span) => {
      const ctx = span.spanContext();
      const snapshot: SpanSnapshot = {
        name: span.name,
        kind: kindName(span.kind),
        traceId: traces.get(ctx.traceId),
        spanId: spanIds.get(ctx.spanId),
        parentSpanId: span.parentSpanContext ? spanIds.get(span.parentSpanContext.spanId) : null,
        status: span.status.message
          ? { code: statusName(span.status.code), message: span.status.message }
          : { code: statusName(span.status.code) },
        attributes: attributes(span.attributes),
        events: span.events.map((e) => {
          const event: { name: string; time?: string | number; attributes: Record<string, SnapshotValue> } = {
            name: e.name,
            attributes: attributes(e.attributes),
          };
          const t = time(e.time);
          if (t !== undefined) event.time = t;
          return event;
        }),
      };
      const start = time(span.startTime);
      if (start !== undefined) {
        snapshot.start = start;
        snapshot.end = time(span.endTime)!;
      }
      return snapshot;
    }),
  };
}

function collectInstants(spans: readonly ReadableSpan[]): number[] {
  const all = new Set<number>();
  for (const span of spans) {
    all.add(microsOf(span.startTime));
    all.add(microsOf(span.endTime));
    for (const e of span.events) all.add(microsOf(e.time));
  }
  return [...all].sort((a, b) => a - b);
}
