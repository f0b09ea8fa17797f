import type { HrTime, Link, SpanContext, SpanStatus } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import { MAX_VALUE_DEPTH, type OtlpAttributes as Attributes, type OtlpScope as Scope } from "./otlp-span-shapes.js";
import { ProtobufWriter } from "./protobuf-writer.js";

// OTLP ExportTraceServiceRequest, in protobuf, written in one pass. The fields and their order are
// those of `@opentelemetry/otlp-transformer`'s serializer, so the bytes are the same (tested);
// what differs is how: long strings are encoded natively, and ids are written from their hex
// without an intermediate array.

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;
/** Span flags: the W3C trace flags, plus "the parent's remoteness is known" and "the parent is remote". */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const NANOS_PER_SECOND = 1e9;
const TWO_16 = 65536;
const TWO_32 = 4294967296;
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/** The protobuf body of an OTLP/HTTP trace export of `spans` (grouped by resource, then instrumentation scope). */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const writer = new ProtobufWriter(Math.max(1024, spans.length * 1024));
  for (const [resource, scopes] of groupSpans(spans)) {
    writer.tag(1, LENGTH_DELIMITED);
    const at = writer.begin();
    writeResource(writer, resource);
    for (const scopeSpans of scopes.values()) {
      writer.tag(2, LENGTH_DELIMITED);
      writeScopeSpans(writer, scopeSpans[0]!.instrumentationScope as Scope, scopeSpans);
    }
    if (resource.schemaUrl) {
      writer.tag(3, LENGTH_DELIMITED);
      writer.string(resource.schemaUrl);
    }
    writer.end(at);
  }
  return writer.finish();
}

function groupSpans(spans: readonly ReadableSpan[]): Map<Resource, Map<object, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<object, ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (byScope === undefined) byResource.set(span.resource, (byScope = new Map()));
    const list = byScope.get(span.instrumentationScope);
    if (list === undefined) byScope.set(span.instrumentationScope, [span]);
    else list.push(span);
  }
  return byResource;
}

function writeResource(writer: ProtobufWriter, resource: Resource): void {
  writer.tag(1, LENGTH_DELIMITED);
  const at = writer.begin();
  if (resource.attributes) writeAttributes(writer, resource.attributes, 1);
  writer.tag(2, VARINT); // dropped_attributes_count
  writer.varint(0);
  writer.end(at);
}

function writeScopeSpans(writer: ProtobufWriter, scope: Scope, spans: readonly ReadableSpan[]): void {
  const at = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  const scopeAt = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(scope.name);
  if (scope.version) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(scope.version);
  }
  if (scope.attributes) writeAttributes(writer, scope.attributes, 3);
  if (scope.droppedAttributesCount) {
    writer.tag(4, VARINT);
    writer.varint(scope.droppedAttributesCount);
  }
  writer.end(scopeAt);
  for (const span of spans) {
    writer.tag(2, LENGTH_DELIMITED);
    writeSpan(writer, span);
  }
  if (scope.schemaUrl) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(scope.schemaUrl);
  }
  writer.end(at);
}

function writeSpan(writer: ProtobufWriter, span: ReadableSpan): void {
  const at = writer.begin();
  const context = span.spanContext();
  writeIds(writer, context);
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    writer.tag(4, LENGTH_DELIMITED);
    writer.hexBytes(parent.spanId);
  }
  writer.tag(5, LENGTH_DELIMITED);
  writer.string(span.name);
  // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
  if (span.kind != null) {
    writer.tag(6, VARINT);
    writer.varint(span.kind + 1);
  }
  writer.tag(7, FIXED64);
  writeTime(writer, span.startTime);
  writer.tag(8, FIXED64);
  writeTime(writer, span.endTime);
  if (span.attributes) writeAttributes(writer, span.attributes, 9);
  writer.tag(10, VARINT);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    writer.tag(11, LENGTH_DELIMITED);
    writeEvent(writer, event);
  }
  writer.tag(12, VARINT);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) {
    writer.tag(13, LENGTH_DELIMITED);
    writeLink(writer, link);
  }
  writer.tag(14, VARINT);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, LENGTH_DELIMITED);
  writeStatus(writer, span.status);
  writer.tag(16, FIXED32);
  writer.fixed32(spanFlags(context.traceFlags, parent?.isRemote));
  writer.end(at);
}

/** Fields 1–3 of a span and of a link alike: trace id, span id, trace state (when there is one). */
function writeIds(writer: ProtobufWriter, context: SpanContext): void {
  writer.tag(1, LENGTH_DELIMITED);
  writer.hexBytes(context.traceId);
  writer.tag(2, LENGTH_DELIMITED);
  writer.hexBytes(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(traceState);
  }
}

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

/** An `[seconds, nanoseconds]` time as fixed64 nanoseconds since the epoch, exactly (the product passes 2^53). */
function writeTime(writer: ProtobufWriter, [seconds, nanos]: HrTime): void {
  const secondsLow = seconds % TWO_16;
  const secondsHigh = (seconds - secondsLow) / TWO_16;
  // seconds·1e9 + nanos = upper·2^16 + lower, each part exact in a double
  const upper = secondsHigh * NANOS_PER_SECOND;
  const lower = secondsLow * NANOS_PER_SECOND + nanos;
  const upperLow = upper % TWO_16;
  const sumLow = upperLow * TWO_16 + lower;
  const low = sumLow % TWO_32;
  const high = (upper - upperLow) / TWO_16 + (sumLow - low) / TWO_32;
  writer.fixed64(low, high);
}

function writeEvent(writer: ProtobufWriter, event: TimedEvent): void {
  const at = writer.begin();
  writer.tag(1, FIXED64);
  writeTime(writer, event.time);
  writer.tag(2, LENGTH_DELIMITED);
  writer.string(event.name);
  if (event.attributes) writeAttributes(writer, event.attributes, 3);
  writer.tag(4, VARINT);
  writer.varint(event.droppedAttributesCount || 0);
  writer.end(at);
}

function writeLink(writer: ProtobufWriter, link: Link): void {
  const at = writer.begin();
  const context = link.context;
  writeIds(writer, context);
  if (link.attributes) writeAttributes(writer, link.attributes, 4);
  writer.tag(5, VARINT);
  writer.varint(link.droppedAttributesCount || 0);
  writer.tag(6, FIXED32);
  writer.fixed32(spanFlags(context.traceFlags, context.isRemote));
  writer.end(at);
}

function writeStatus(writer: ProtobufWriter, status: SpanStatus): void {
  const at = writer.begin();
  if (status.message) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(status.message);
  }
  writer.tag(3, VARINT);
  writer.varint(status.code);
  writer.end(at);
}

function writeAttributes(writer: ProtobufWriter, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    writer.tag(field, LENGTH_DELIMITED);
    writeKeyValue(writer, key, attributes[key]);
  }
}

function writeKeyValue(writer: ProtobufWriter, key: string, value: unknown, depth = 0): void {
  const at = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(key);
  writer.tag(2, LENGTH_DELIMITED);
  writeAnyValue(writer, value, depth);
  writer.end(at);
}

/**
 * An AnyValue (length-delimited). Attribute values are flat (a scalar or an array of scalars);
 * arrays and objects are written as OTLP array and key-value lists down to MAX_VALUE_DEPTH, and an
 * empty value below that, so a hostile value cannot make the encoder recurse without bound.
 */
function writeAnyValue(writer: ProtobufWriter, value: unknown, depth = 0): void {
  const at = writer.begin();
  switch (typeof value) {
    case "string":
      writer.tag(1, LENGTH_DELIMITED);
      writer.string(value);
      break;
    case "boolean":
      writer.tag(2, VARINT);
      writer.varint(value ? 1 : 0);
      break;
    case "number":
      if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
        writer.tag(3, VARINT);
        writer.varint(value);
      } else {
        writer.tag(4, FIXED64);
        writer.double(value);
      }
      break;
    default:
      if (depth >= MAX_VALUE_DEPTH) break;
      if (value instanceof Uint8Array) {
        writer.tag(7, LENGTH_DELIMITED);
        writer.bytesField(value);
      } else if (Array.isArray(value)) {
        writer.tag(5, LENGTH_DELIMITED);
        const list = writer.begin();
        for (const item of value) {
          writer.tag(1, LENGTH_DELIMITED);
          writeAnyValue(writer, item, depth + 1);
        }
        writer.end(list);
      } else if (typeof value === "object" && value !== null) {
        writer.tag(6, LENGTH_DELIMITED);
        const list = writer.begin();
        for (const key in value) {
          if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
          writer.tag(1, LENGTH_DELIMITED);
          writeKeyValue(writer, key, (value as Record<string, unknown>)[key], depth + 1);
        }
        writer.end(list);
      }
  }
  writer.end(at);
}
