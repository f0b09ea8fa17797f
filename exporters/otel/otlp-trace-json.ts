import type { HrTime, Link, SpanContext } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import { MAX_VALUE_DEPTH, type OtlpAttributes as Attributes, type OtlpScope as Scope } from "./otlp-span-shapes.js";

// OTLP ExportTraceServiceRequest in OTLP/JSON: the object OpenTelemetry's JSON serializer builds
// (hex ids, nanosecond times as decimal strings, span kinds counted from UNSPECIFIED = 0, bytes in
// base64), with its key order, so `JSON.stringify` of it gives the same bytes (tested). It lets
// the JSON span export run without `@opentelemetry/otlp-transformer`.

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: number }
  | { doubleValue: number }
  | { bytesValue: string }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;
interface KeyValue {
  key: string;
  value: AnyValue;
}

/** The OTLP/JSON body of an OTLP/HTTP trace export of `spans` (grouped by resource, then instrumentation scope). */
export function encodeTraceRequestJson(spans: readonly ReadableSpan[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(traceRequestJson(spans)));
}

/** The request as the object whose `JSON.stringify` is the body. */
export function traceRequestJson(spans: readonly ReadableSpan[]): { resourceSpans: unknown[] } {
  const resourceSpans: unknown[] = [];
  for (const [resource, scopes] of groupSpans(spans)) {
    const scopeSpans: unknown[] = [];
    for (const list of scopes.values()) {
      const scope = list[0]!.instrumentationScope as Scope;
      scopeSpans.push({ scope: scopeJson(scope), spans: list.map(spanJson), schemaUrl: scope.schemaUrl });
    }
    const resourceJson: { attributes: KeyValue[]; droppedAttributesCount: number; schemaUrl?: string } = {
      attributes: attributesJson(resource.attributes),
      droppedAttributesCount: 0,
    };
    if (resource.schemaUrl) resourceJson.schemaUrl = resource.schemaUrl;
    resourceSpans.push({ resource: resourceJson, scopeSpans, schemaUrl: resourceJson.schemaUrl });
  }
  return { resourceSpans };
}

/** By resource object, then by scope name, version and schema URL (as OpenTelemetry's serializer groups them). */
function groupSpans(spans: readonly ReadableSpan[]): Map<Resource, Map<string, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (byScope === undefined) byResource.set(span.resource, (byScope = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}@${scope.version || ""}:${scope.schemaUrl || ""}`;
    const list = byScope.get(key);
    if (list === undefined) byScope.set(key, [span]);
    else list.push(span);
  }
  return byResource;
}

function scopeJson(scope: Scope): Record<string, unknown> {
  const out: Record<string, unknown> = { name: scope.name, version: scope.version };
  if (scope.attributes && Object.keys(scope.attributes).length > 0) {
    out["attributes"] = attributesJson(scope.attributes);
    out["droppedAttributesCount"] = scope.droppedAttributesCount ?? 0;
  }
  return out;
}

function spanJson(span: ReadableSpan): Record<string, unknown> {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: parent?.spanId ? parent.spanId : undefined,
    traceState: context.traceState?.serialize(),
    name: span.name,
    // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
    kind: span.kind == null ? 0 : span.kind + 1,
    startTimeUnixNano: nanosText(span.startTime),
    endTimeUnixNano: nanosText(span.endTime),
    attributes: attributesJson(span.attributes),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map(eventJson),
    droppedEventsCount: span.droppedEventsCount,
    status: { code: span.status.code, message: span.status.message },
    links: span.links.map(linkJson),
    droppedLinksCount: span.droppedLinksCount,
    flags: spanFlags(context, parent?.isRemote),
  };
}

function eventJson(event: TimedEvent): Record<string, unknown> {
  return {
    attributes: event.attributes ? attributesJson(event.attributes) : [],
    name: event.name,
    timeUnixNano: nanosText(event.time),
    droppedAttributesCount: event.droppedAttributesCount || 0,
  };
}

function linkJson(link: Link): Record<string, unknown> {
  return {
    attributes: link.attributes ? attributesJson(link.attributes) : [],
    spanId: link.context.spanId,
    traceId: link.context.traceId,
    traceState: link.context.traceState?.serialize(),
    droppedAttributesCount: link.droppedAttributesCount || 0,
    flags: spanFlags(link.context, link.context.isRemote),
  };
}

/** The W3C trace flags, plus "the parent's remoteness is known" (0x100) and "it is remote" (0x200). */
function spanFlags(context: SpanContext, isRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

/**
 * `[seconds, nanoseconds]` as decimal nanoseconds since the epoch, exactly: the digits are joined
 * as text, because seconds · 1e9 passes 2^53.
 */
export function nanosText([seconds, nanos]: HrTime): string {
  const s = Math.trunc(seconds);
  const n = Math.trunc(nanos);
  if (s === 0 || n < 0 || n >= 1e9 || s < 0) return (BigInt(s) * 1_000_000_000n + BigInt(n)).toString();
  return `${s}${String(n).padStart(9, "0")}`;
}

function attributesJson(attributes: Attributes): KeyValue[] {
  return Object.keys(attributes).map((key) => ({ key, value: anyValueJson(attributes[key], 0) }));
}

/**
 * An AnyValue. Attribute values are flat (a scalar or an array of scalars); arrays and objects are
 * written down to MAX_VALUE_DEPTH and an empty value below that, so a hostile value cannot make the
 * encoder recurse without bound.
 */
function anyValueJson(value: unknown, depth: number): AnyValue {
  switch (typeof value) {
    case "string":
      return { stringValue: value };
    case "number":
      return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
    case "boolean":
      return { boolValue: value };
    default:
      break;
  }
  if (value instanceof Uint8Array) return { bytesValue: base64(value) };
  if (depth >= MAX_VALUE_DEPTH) return {};
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => anyValueJson(item, depth + 1)) } };
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return { kvlistValue: { values: Object.keys(record).map((key) => ({ key, value: anyValueJson(record[key], depth + 1) })) } };
  }
  return {};
}

function base64(bytes: Uint8Array): string {
  let text = "";
  // In slices: String.fromCharCode over a whole large array would overflow the argument stack.
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
