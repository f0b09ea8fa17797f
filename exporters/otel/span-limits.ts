import type { Attributes } from "@opentelemetry/api";
import { looksLikeJsonContainer, truncateJsonText } from "./json-truncate.js";

/** Attribute limits of the span pipeline: the app provider's, else `OTEL_SPAN_ATTRIBUTE_*` / `OTEL_ATTRIBUTE_*`. */
export interface SpanLimitSettings {
  valueLength?: number;
  count?: number;
}

/**
 * Applies the limits the way the SDK does: strings (and string array items) are cut to the value
 * length, attributes past the count are dropped (the first ones written are kept). Returns how
 * many were dropped. A string holding a JSON object or array (messages, tool arguments and
 * results, flattened data) is shortened inside its values instead, so that it still parses
 * (see json-truncate.ts); any other string is cut as the SDK cuts it.
 */
export function applySpanLimits(attrs: Attributes, limits: SpanLimitSettings): number {
  const { valueLength, count } = limits;
  if (valueLength === undefined && count === undefined) return 0; // the default: nothing to cut
  let dropped = 0;
  let kept = 0;
  for (const key of Object.keys(attrs)) {
    if (count !== undefined && kept >= count) {
      delete attrs[key];
      dropped++;
      continue;
    }
    kept++;
    if (valueLength === undefined) continue;
    const value = attrs[key];
    if (typeof value === "string" && value.length > valueLength) attrs[key] = limitText(value, valueLength);
    else if (Array.isArray(value))
      attrs[key] = value.map((v) => (typeof v === "string" && v.length > valueLength ? limitText(v, valueLength) : v)) as typeof value;
  }
  return dropped;
}

/** The value length limit on span event attributes too (marks rendered as span events), as the SDK applies it to events. */
export function applyEventValueLimits(events: readonly { attributes?: Attributes }[], limits: SpanLimitSettings): void {
  if (limits.valueLength === undefined) return;
  for (const event of events) if (event.attributes) applySpanLimits(event.attributes, { valueLength: limits.valueLength });
}

/** `text` within `limit` code units: JSON shortened so it still parses, anything else cut. */
export function limitText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  if (looksLikeJsonContainer(text)) {
    const json = truncateJsonText(text, limit);
    if (json !== undefined) return json;
  }
  return text.slice(0, limit);
}
