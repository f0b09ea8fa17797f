import { MARK_LLM_CHUNK, METRIC_SCHEMA, SCHEMA_EVALUATION } from "../../src/events/wire-names.js";
import type { Attributes } from "@opentelemetry/api";
import { isJsonObject } from "../../src/events/json.js";
import type { MarkEvent } from "../../src/events/types.js";
import { attributeKey, flattenInto } from "./flatten.js";

/** Marks with this data schema carry metrics and never reach traces. */
export const METRIC_SCHEMA_NAME = METRIC_SCHEMA.name;

/** How marks render: `event` (span events on the parent span), `tool` (their own spans), `inherit` (default; like `event`). */
export type MarkProjectionSetting = "inherit" | "event" | "tool";
export const DEFAULT_MARK_EXCLUDE_NAMES: readonly string[] = [MARK_LLM_CHUNK];

export function isMetricMark(mark: MarkEvent): boolean {
  return mark.data_schema?.name === METRIC_SCHEMA_NAME;
}

/** Whether a mark is a `runtime.recordEvaluation` (its data schema says so). */
export function isEvaluationMark(mark: MarkEvent): boolean {
  return mark.data_schema?.name === SCHEMA_EVALUATION && isJsonObject(mark.data);
}

/** The `<ns>.mark.*` attributes shared by span events and mark spans. */
export function markAttributes(ns: string, mark: MarkEvent): Attributes {
  const attrs: Attributes = {
    [attributeKey(ns, "mark.uuid")]: mark.uuid,
    [attributeKey(ns, "mark.parent_uuid")]: mark.parent_uuid ?? "",
  };
  flattenInto(attrs, attributeKey(ns, "mark.data"), mark.data);
  flattenInto(attrs, attributeKey(ns, "mark.metadata"), mark.metadata);
  if (mark.category !== null && mark.category !== undefined) attrs[attributeKey(ns, "mark.category")] = mark.category;
  flattenInto(attrs, attributeKey(ns, "mark.category_profile"), mark.category_profile);
  return attrs;
}

/** Whether this mark renders as a `tool` span, given the setting and the exclusion list. */
export function usesToolProjection(mark: MarkEvent, setting: MarkProjectionSetting, exclude: ReadonlySet<string>): boolean {
  if (setting !== "tool") return false;
  if (exclude.has(mark.name)) return false;
  const hook = isJsonObject(mark.metadata) ? mark.metadata["hook_event_name"] : undefined;
  return !(typeof hook === "string" && exclude.has(hook));
}
