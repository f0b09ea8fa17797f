import { PROFILE_TOOL_RESULT_ANNOTATION } from "../../src/events/wire-names.js";
import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import { CATEGORIES, type Category, type ScopeEvent } from "../../src/events/types.js";
import { attributeKey, flattenInto, jsonText } from "./flatten.js";

const KNOWN = new Set<string>(CATEGORIES);

/** `<ns>.scope_type`: the lowercase category; unknown strings project as `unknown`. */
export function scopeTypeOf(category: string | null | undefined): Category {
  const lower = (category ?? "unknown").toLowerCase();
  return (KNOWN.has(lower) ? lower : "unknown") as Category;
}

/** Attributes every full/openinference scope span starts with. */
export function writeIdentity(attrs: Attributes, ns: string, start: ScopeEvent): void {
  attrs[attributeKey(ns, "uuid")] = start.uuid;
  attrs[attributeKey(ns, "parent_uuid")] = start.parent_uuid ?? "";
  attrs[attributeKey(ns, "scope_type")] = scopeTypeOf(start.category);
}

/** `<ns>.handle_attributes`, `<ns>.start.data.*` and its `<ns>.start.input.*` alias. */
export function writeStartData(attrs: Attributes, ns: string, start: ScopeEvent): void {
  attrs[attributeKey(ns, "handle_attributes")] = jsonText(Array.isArray(start.attributes) ? start.attributes : []);
  flattenInto(attrs, attributeKey(ns, "start.data"), start.data);
  flattenInto(attrs, attributeKey(ns, "start.input"), start.data);
}

/** `<ns>.end.data.*` and its `<ns>.end.output.*` alias. */
export function writeEndData(attrs: Attributes, ns: string, end: ScopeEvent): void {
  flattenInto(attrs, attributeKey(ns, "end.data"), end.data);
  flattenInto(attrs, attributeKey(ns, "end.output"), end.data);
}

/** The tool annotation as ONE JSON-text attribute, only on successful tool ends. */
export function writeAnnotation(attrs: Attributes, ns: string, end: ScopeEvent, succeeded: boolean): void {
  if (!succeeded || scopeTypeOf(end.category) !== "tool") return;
  const annotation = end.category_profile?.[PROFILE_TOOL_RESULT_ANNOTATION];
  if (annotation === null || annotation === undefined) return;
  attrs[attributeKey(ns, "tool.result.annotation")] = jsonText(annotation);
}

/** `category_profile[key]` when it is a non-empty string. */
export function profileString(event: { category_profile: Json | null }, key: string): string | undefined {
  const profile = event.category_profile;
  if (!isJsonObject(profile)) return undefined;
  const value = profile[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}
