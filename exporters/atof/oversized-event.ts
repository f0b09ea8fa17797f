import { serializeEvent } from "../../src/events/atof-serialize.js";
import type { Json, JsonObject } from "../../src/events/json.js";
import { jsonText } from "../../src/events/json-text.js";
import type { AtofEvent } from "../../src/events/types.js";
import { lineBytes, lineLength, type AtofLine } from "./line-buffer.js";

/** The event's free-form fields, the only ones large enough to matter. */
const PAYLOAD_FIELDS = ["data", "metadata", "category_profile"] as const;

/** UTF-8 bytes of `line`, counted only when its length alone cannot settle whether it exceeds `limit`. */
function exceeds(line: AtofLine, limit: number): boolean {
  const length = lineLength(line);
  if (length > limit) return true; // a UTF-16 code unit takes at least one byte
  if (length * 3 <= limit) return false; // and at most three
  return lineBytes(line) > limit;
}

/** What stands in for a field too large to keep: how large it was, and why it is not there. */
function marker(bytes: number, limit: number): JsonObject {
  return { "relaytrace.omitted": { bytes, reason: `the event was larger than the ${limit}-byte limit of one ATOF line` } };
}

/**
 * `line` (the serialized `event`) when it fits in `limit` UTF-8 bytes; else the event serialized
 * with its largest payload fields (data, metadata, category_profile), one at a time, replaced by a
 * marker saying how many bytes each held, until it fits. The event itself (its uuid, name,
 * timestamps, parent) is always kept; undefined only when even its bare fields exceed the limit.
 */
export function lineWithin(event: AtofEvent, line: AtofLine, limit: number): { line: AtofLine; omitted: number } | undefined {
  if (!exceeds(line, limit)) return { line, omitted: 0 };
  const sizes = PAYLOAD_FIELDS.map((field) => ({ field, bytes: Buffer.byteLength(jsonText((event[field] ?? null) as Json), "utf8") }));
  sizes.sort((a, b) => b.bytes - a.bytes);
  const reduced: Record<string, unknown> = Object.fromEntries(Object.entries(event)); // no marks of the original's own text
  let omitted = 0;
  for (const { field, bytes } of sizes) {
    reduced[field] = marker(bytes, limit);
    omitted++;
    const text = serializeEvent(reduced as unknown as AtofEvent);
    if (!exceeds(text, limit)) return { line: text, omitted };
  }
  return undefined;
}
