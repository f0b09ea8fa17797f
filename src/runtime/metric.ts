import type { Json, JsonObject } from "../events/json.js";
import { METRIC_SCHEMA } from "../events/wire-names.js";

/** The reserved schema of metric marks; trace projections never render these marks. */
export { METRIC_SCHEMA };

export type MetricKind = "counter" | "up_down_counter" | "gauge" | "histogram";
export type MetricValueType = "u64" | "i64" | "f64";

/** One measurement of `runtime.metric()` (camelCase here; `value_type` on the wire). */
export interface MetricMeasurement {
  name: string;
  kind: MetricKind;
  valueType: MetricValueType;
  value: number;
  unit?: string;
  description?: string;
  attributes?: Record<string, string | number | boolean>;
  /** Histogram bucket boundaries, ascending. */
  boundaries?: number[];
}

const KINDS = new Set<string>(["counter", "up_down_counter", "gauge", "histogram"]);
const KEYS = new Set(["name", "kind", "valueType", "value", "unit", "description", "attributes", "boundaries"]);

function fail(index: number, message: string): never {
  throw new TypeError(`metric measurements[${index}]: ${message}`);
}

/**
 * Validates every measurement before anything is emitted (all or nothing) and returns the wire
 * `data` of the metric mark: `{ measurements: [{ name, kind, value_type, value, … }] }`.
 */
export function metricData(measurements: readonly MetricMeasurement[]): JsonObject {
  if (!Array.isArray(measurements) || measurements.length === 0) {
    throw new TypeError("metric needs a non-empty array of measurements");
  }
  const wire: Json[] = measurements.map((m, i) => {
    if (typeof m !== "object" || m === null) fail(i, "must be an object");
    for (const key of Object.keys(m)) {
      if (!KEYS.has(key)) fail(i, key === "value_type" ? "unknown field value_type (use valueType)" : `unknown field ${key}`);
    }
    if (typeof m.name !== "string" || m.name === "") fail(i, "name must be a non-empty string");
    if (!KINDS.has(m.kind)) fail(i, "kind must be counter, up_down_counter, gauge or histogram");
    const v = m.value;
    if (m.valueType === "u64") {
      if (!Number.isSafeInteger(v) || v < 0) fail(i, "a u64 value must be a non-negative safe integer");
    } else if (m.valueType === "i64") {
      if (!Number.isSafeInteger(v)) fail(i, "an i64 value must be a safe integer");
    } else if (m.valueType === "f64") {
      if (typeof v !== "number" || !Number.isFinite(v)) fail(i, "an f64 value must be a finite number");
    } else {
      fail(i, "valueType must be u64, i64 or f64");
    }
    if (m.kind === "counter" && v < 0) fail(i, "a counter value cannot be negative");
    const out: JsonObject = { name: m.name, kind: m.kind, value_type: m.valueType, value: v };
    if (m.unit !== undefined) {
      if (typeof m.unit !== "string") fail(i, "unit must be a string");
      out.unit = m.unit;
    }
    if (m.description !== undefined) {
      if (typeof m.description !== "string") fail(i, "description must be a string");
      out.description = m.description;
    }
    if (m.attributes !== undefined) {
      if (typeof m.attributes !== "object" || m.attributes === null || Array.isArray(m.attributes)) fail(i, "attributes must be an object");
      for (const [k, a] of Object.entries(m.attributes)) {
        if (!["string", "number", "boolean"].includes(typeof a) || (typeof a === "number" && !Number.isFinite(a))) {
          fail(i, `attribute ${k} must be a string, a finite number or a boolean`);
        }
      }
      out.attributes = { ...m.attributes };
    }
    if (m.boundaries !== undefined) {
      if (m.kind !== "histogram") fail(i, "boundaries belong to histograms only");
      const b = m.boundaries;
      if (!Array.isArray(b) || b.some((x, j) => typeof x !== "number" || !Number.isFinite(x) || (j > 0 && x <= b[j - 1]!))) {
        fail(i, "boundaries must be finite numbers in ascending order");
      }
      out.boundaries = [...b];
    }
    return out;
  });
  return { measurements: wire };
}
