import { PROFILE_TOOL_RESULT_ANNOTATION } from "../../src/events/wire-names.js";
import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import { CATEGORIES, type Category, type ScopeEvent } from "../../src/events/types.js";
import { AliasedPrefixes, AttributePrefix, attributeKey, flattenTwice, jsonText } from "./flatten.js";

const KNOWN = new Set<string>(CATEGORIES);

/** `<ns>.scope_type`: the lowercase category; unknown strings project as `unknown`. */
export function scopeTypeOf(category: string | null | undefined): Category {
  if (typeof category === "string" && KNOWN.has(category)) return category as Category; // already lowercase
  const lower = (category ?? "unknown").toLowerCase();
  return (KNOWN.has(lower) ? lower : "unknown") as Category;
}

/** The `<ns>.*` names full and openinference scope spans write, built once per projection. */
export class ScopeKeys {
  readonly uuid: string;
  readonly parentUuid: string;
  readonly scopeType: string;
  readonly handleAttributes: string;
  readonly annotation: string;
  /** `<ns>.start.data` and its alias `<ns>.start.input`. */
  readonly startData: AliasedPrefixes;
  /** `<ns>.end.data` and its alias `<ns>.end.output`. */
  readonly endData: AliasedPrefixes;

  constructor(ns: string) {
    this.uuid = attributeKey(ns, "uuid");
    this.parentUuid = attributeKey(ns, "parent_uuid");
    this.scopeType = attributeKey(ns, "scope_type");
    this.handleAttributes = attributeKey(ns, "handle_attributes");
    this.annotation = attributeKey(ns, "tool.result.annotation");
    const prefix = (name: string): AttributePrefix => new AttributePrefix(attributeKey(ns, name));
    this.startData = new AliasedPrefixes(prefix("start.data"), prefix("start.input"));
    this.endData = new AliasedPrefixes(prefix("end.data"), prefix("end.output"));
  }
}

/** Attributes every full/openinference scope span starts with (`type`: the start's scopeTypeOf). */
export function writeIdentity(attrs: Attributes, keys: ScopeKeys, start: ScopeEvent, type: Category): void {
  attrs[keys.uuid] = start.uuid;
  attrs[keys.parentUuid] = start.parent_uuid ?? "";
  attrs[keys.scopeType] = type;
}

const NO_HANDLE_ATTRIBUTES = "[]";

/** `<ns>.handle_attributes`, `<ns>.start.data.*` and its `<ns>.start.input.*` alias. */
export function writeStartData(attrs: Attributes, keys: ScopeKeys, start: ScopeEvent): void {
  const flags = start.attributes;
  attrs[keys.handleAttributes] = Array.isArray(flags) && flags.length > 0 ? jsonText(flags) : NO_HANDLE_ATTRIBUTES;
  flattenTwice(attrs, keys.startData, start.data);
}

/** `<ns>.end.data.*` and its `<ns>.end.output.*` alias. */
export function writeEndData(attrs: Attributes, keys: ScopeKeys, end: ScopeEvent): void {
  flattenTwice(attrs, keys.endData, end.data);
}

/** The tool annotation as ONE JSON-text attribute, only on successful tool ends. */
export function writeAnnotation(attrs: Attributes, keys: ScopeKeys, end: ScopeEvent, succeeded: boolean): void {
  if (!succeeded || scopeTypeOf(end.category) !== "tool") return;
  const annotation = end.category_profile?.[PROFILE_TOOL_RESULT_ANNOTATION];
  if (annotation === null || annotation === undefined) return;
  attrs[keys.annotation] = jsonText(annotation);
}

/** `category_profile[key]` when it is a non-empty string. */
export function profileString(event: { category_profile: Json | null }, key: string): string | undefined {
  const profile = event.category_profile;
  if (!isJsonObject(profile)) return undefined;
  const value = profile[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}
