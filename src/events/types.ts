import type { Json, JsonObject } from "./json.js";

/** The ATOF version relaytrace writes. */
export const ATOF_VERSION = "0.1";

/** The category vocabulary relaytrace's producer API emits (readers also keep unknown strings). */
export type Category =
  "agent" | "function" | "llm" | "tool" | "retriever" | "embedder" | "reranker" | "guardrail" | "evaluator" | "custom" | "unknown";

export const CATEGORIES: readonly Category[] = [
  "agent",
  "function",
  "llm",
  "tool",
  "retriever",
  "embedder",
  "reranker",
  "guardrail",
  "evaluator",
  "custom",
  "unknown",
];

export interface DataSchema {
  name: string;
  version: string;
}

export type LogSeverity = "trace" | "debug" | "info" | "warn" | "warning" | "error";

/** A scope boundary event, exactly as on the ATOF 0.1 wire (snake_case). */
export interface ScopeEvent {
  kind: "scope";
  scope_category: "start" | "end";
  atof_version: string;
  uuid: string;
  parent_uuid: string | null;
  /** RFC 3339 string (relaytrace writes `…T…:…:….ffffffZ`) or integer epoch microseconds. */
  timestamp: string | number;
  name: string;
  attributes: string[];
  category: string;
  category_profile: JsonObject | null;
  data: Json;
  data_schema: DataSchema | null;
  metadata: Json;
}

/** A point-in-time checkpoint, exactly as on the ATOF 0.1 wire. */
export interface MarkEvent {
  kind: "mark";
  atof_version: string;
  uuid: string;
  parent_uuid: string | null;
  timestamp: string | number;
  name: string;
  category: string | null;
  category_profile: JsonObject | null;
  data: Json;
  data_schema: DataSchema | null;
  metadata: Json;
}

export type AtofEvent = ScopeEvent | MarkEvent;

/** Known envelope keys in the order relaytrace writes them. */
export const SCOPE_KEY_ORDER = [
  "kind",
  "scope_category",
  "atof_version",
  "uuid",
  "parent_uuid",
  "timestamp",
  "name",
  "attributes",
  "category",
  "category_profile",
  "data",
  "data_schema",
  "metadata",
] as const;

export const MARK_KEY_ORDER = [
  "kind",
  "atof_version",
  "uuid",
  "parent_uuid",
  "timestamp",
  "name",
  "category",
  "category_profile",
  "data",
  "data_schema",
  "metadata",
] as const;

/** The known keys of each kind, for lookups (a writer appends, a reader keeps, any other key after them). */
export const SCOPE_KEYS: ReadonlySet<string> = new Set(SCOPE_KEY_ORDER);
export const MARK_KEYS: ReadonlySet<string> = new Set(MARK_KEY_ORDER);

/**
 * Set (as a symbol property, invisible to JSON and `Object.keys`) on events the runtime built
 * itself: their keys are exactly the canonical ones, in the canonical order, so one
 * `JSON.stringify` of the whole event is already the ATOF line.
 */
export const CANONICAL_EVENT: unique symbol = Symbol.for("relaytrace.canonicalEvent");

/**
 * Set (as a symbol property) on events the runtime built itself: the timestamp's text with the
 * integer epoch microseconds it was formatted from, so exporters need not parse it back. Read it
 * with `eventMicros`, which trusts it only while the event's timestamp is still that text (a
 * copy of the event with another timestamp carries the symbol along).
 */
export const EVENT_TIME: unique symbol = Symbol.for("relaytrace.eventTime");

export interface EventTime {
  readonly text: string;
  readonly us: number;
}

export function isScopeEvent(event: AtofEvent): event is ScopeEvent {
  return event.kind === "scope";
}
