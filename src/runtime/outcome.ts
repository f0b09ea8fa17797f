import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { LogSeverity } from "../events/types.js";
import { checkCategory } from "./category-check.js";
import type { PendingMarkSpec, ToolExecutionInterceptOutcome, ToolExecutionResult } from "./types.js";

const SPEC_KEYS = new Set(["name", "category", "categoryProfile", "data", "dataSchema", "metadata", "severity"]);
const SEVERITIES = new Set<LogSeverity>(["trace", "debug", "info", "warn", "warning", "error"]);

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without a result key" : `a raw ${typeof value}`;
}

/**
 * Checks a tool's outcome (from a tool callback, an intercept, a continuation or `endTool`):
 * `{result, annotation?, pendingMarks?, pending?}`; a raw value is an error, and so is a bad mark spec.
 */
export function toToolResult(value: unknown, where = "tool callback"): ToolExecutionResult {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("result" in value)) {
    throw new TypeError(`invalid tool execution result: ${where} returned ${describe(value)}; expected { result, annotation? }`);
  }
  const v = value as ToolExecutionResult;
  const out: ToolExecutionResult =
    v.annotation === undefined || v.annotation === null ? { result: v.result } : { result: v.result, annotation: v.annotation };
  const pending = checkPending(v.pending, where);
  if (pending !== undefined) out.pending = pending;
  const marks = v.pendingMarks;
  if (marks !== undefined && marks !== null) out.pendingMarks = checkPendingMarks(marks, where);
  return out;
}

function checkPendingMarks(marks: unknown, where: string): PendingMarkSpec[] {
  if (!Array.isArray(marks)) throw new TypeError(`${where}: pendingMarks must be an array of { name, ... } specs`);
  marks.forEach((spec, i) => validatePendingMarkSpec(spec, `${where}: pendingMarks[${i}]`));
  return marks as PendingMarkSpec[];
}

/** A suspension's request must be a JSON object (it becomes the `tool.pending` mark's data). */
function checkPending(pending: unknown, where: string): JsonObject | undefined {
  if (pending === undefined || pending === null) return undefined;
  if (!isJsonObject(pending as Json))
    throw new TypeError(`invalid tool execution result: ${where} returned a pending request that is not an object`);
  return pending as JsonObject;
}

/** Checks an intercept return: `{result, annotation?, pendingMarks?}`; unknown extra fields are accepted. */
export function toInterceptOutcome(
  value: unknown,
  interceptName: string,
): Required<Pick<ToolExecutionResult, "pendingMarks">> & ToolExecutionResult {
  const checked = toToolResult(value, `execution intercept ${interceptName}`);
  if (checked.pendingMarks === undefined) checked.pendingMarks = NO_MARKS;
  return checked as Required<Pick<ToolExecutionResult, "pendingMarks">> & ToolExecutionResult;
}

/** Shared, never mutated: an outcome without pending marks. */
const NO_MARKS: PendingMarkSpec[] = [];

export function validatePendingMarkSpec(spec: unknown, where: string): asserts spec is PendingMarkSpec {
  if (!isJsonObject(spec as Json)) throw new TypeError(`${where} must be an object with a name`);
  for (const key of Object.keys(spec as object)) {
    if (!SPEC_KEYS.has(key)) {
      const hint = key === "category_profile" ? " (use categoryProfile)" : key === "data_schema" ? " (use dataSchema)" : "";
      throw new TypeError(`${where}: unknown field ${key}${hint}`);
    }
  }
  const s = spec as Record<string, unknown>;
  if (typeof s.name !== "string" || s.name.length === 0) throw new TypeError(`${where}: name must be a non-empty string`);
  if (s.category !== undefined && s.category !== null && typeof s.category !== "string") {
    throw new TypeError(`${where}: category must be a string or null`);
  }
  checkCategory(s.category, where);
  if (s.categoryProfile !== undefined && s.categoryProfile !== null && !isJsonObject(s.categoryProfile as Json)) {
    throw new TypeError(`${where}: categoryProfile must be an object or null`);
  }
  if (s.dataSchema !== undefined && s.dataSchema !== null) {
    const ds = s.dataSchema as Record<string, unknown>;
    if (!isJsonObject(ds as Json) || typeof ds.name !== "string" || typeof ds.version !== "string") {
      throw new TypeError(`${where}: dataSchema must be { name: string, version: string }`);
    }
  }
  if (s.severity !== undefined && !SEVERITIES.has(s.severity as LogSeverity)) {
    throw new TypeError(`${where}: severity must be one of trace, debug, info, warn, error`);
  }
}

/** `{result, annotation?}` as the application sees it. */
export function toolResult<T extends Json>(result: T, annotation?: Json): ToolExecutionResult<T> {
  return annotation === undefined || annotation === null ? { result } : { result, annotation };
}

export function withAnnotation<T extends Json>(r: ToolExecutionResult<T>, annotation: Json): ToolExecutionResult<T> {
  return toolResult(r.result, annotation);
}

export function withoutAnnotation<T extends Json>(r: ToolExecutionResult<T>): ToolExecutionResult<T> {
  return { result: r.result };
}

export function withPendingMark<T extends Json>(
  outcome: ToolExecutionInterceptOutcome<T>,
  spec: PendingMarkSpec,
): ToolExecutionInterceptOutcome<T> {
  validatePendingMarkSpec(spec, "withPendingMark");
  return { ...outcome, pendingMarks: [...(outcome.pendingMarks ?? []), spec] };
}

export function toExecutionResult<T extends Json>(outcome: ToolExecutionInterceptOutcome<T>): ToolExecutionResult<T> {
  return toolResult(outcome.result, outcome.annotation);
}

/** Normalizes a severity for the wire (`warning` is written as `warn`). */
export function wireSeverity(severity: LogSeverity): string {
  return severity === "warning" ? "warn" : severity;
}

export type { JsonObject };
