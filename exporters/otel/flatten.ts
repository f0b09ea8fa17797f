import type { Attributes } from "@opentelemetry/api";
import type { Json } from "../../src/events/json.js";

/**
 * Writes `value` under `prefix` (§1.7): objects give one attribute per top-level key, nested
 * objects/arrays become JSON text, scalars keep their type, null and non-finite numbers vanish.
 */
export function flattenInto(attrs: Attributes, prefix: string, value: Json | undefined): void {
  if (value === null || value === undefined) return;
  if (typeof value === "object" && !Array.isArray(value)) {
    for (const key of Object.keys(value)) setScalarOrJson(attrs, `${prefix}.${key}`, value[key]);
    return;
  }
  setScalarOrJson(attrs, prefix, value);
}

function setScalarOrJson(attrs: Attributes, key: string, value: Json | undefined): void {
  if (value === null || value === undefined) return;
  switch (typeof value) {
    case "string":
    case "boolean":
      attrs[key] = value;
      return;
    case "number":
      if (Number.isFinite(value)) attrs[key] = value;
      return;
    default:
      attrs[key] = JSON.stringify(value);
  }
}

/** JSON text of a value, tolerant of anything (never throws). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
