import type { Attributes } from "@opentelemetry/api";

/** Attribute limits of the span pipeline: the app provider's, else `OTEL_SPAN_ATTRIBUTE_*` / `OTEL_ATTRIBUTE_*`. */
export interface SpanLimitSettings {
  valueLength?: number;
  count?: number;
}

/**
 * Applies the limits the way the SDK does: strings (and string array items) are cut to the value
 * length, attributes past the count are dropped (the first ones written are kept). Returns how
 * many were dropped.
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
    if (typeof value === "string" && value.length > valueLength) attrs[key] = value.slice(0, valueLength);
    else if (Array.isArray(value))
      attrs[key] = value.map((v) => (typeof v === "string" && v.length > valueLength ? v.slice(0, valueLength) : v)) as typeof value;
  }
  return dropped;
}
