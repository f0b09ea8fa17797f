import type { Attributes } from "@opentelemetry/api";
import type { Json } from "../../src/events/json.js";
import { FROZEN_TEXT_MIN_LENGTH, frozenJsonTexts, jsonText as deepJsonText } from "../../src/events/json-text.js";

/**
 * Writes `value` under `prefix`: objects give one attribute per top-level key, nested
 * objects/arrays become JSON text, scalars keep their type, null and non-finite numbers vanish.
 */
export function flattenInto(attrs: Attributes, prefix: string, value: Json | undefined): void {
  if (value === null || value === undefined) return;
  if (typeof value === "object" && !Array.isArray(value)) {
    for (const key of Object.keys(value)) setScalarOrJson(attrs, attributeKey(prefix, key), value[key]);
    return;
  }
  setScalarOrJson(attrs, prefix, value);
}

// Attribute names repeat from span to span: building `prefix.key` once keeps one string per name
// instead of a fresh concatenation (and hash) per attribute. Bounded per prefix.
const keyCache = new Map<string, Map<string, string>>();
const MAX_KEYS_PER_PREFIX = 1024;
const MAX_PREFIXES = 256;

/** `prefix.key`, one string per pair (attribute names repeat from span to span). */
export function attributeKey(prefix: string, key: string): string {
  let keys = keyCache.get(prefix);
  if (keys === undefined) {
    if (keyCache.size >= MAX_PREFIXES) return `${prefix}.${key}`;
    keys = new Map();
    keyCache.set(prefix, keys);
  }
  let full = keys.get(key);
  if (full === undefined) {
    full = `${prefix}.${key}`;
    if (keys.size < MAX_KEYS_PER_PREFIX) keys.set(key, full);
  }
  return full;
}

// Events reach exporters deep-frozen, so the JSON text of one of their objects never changes:
// a large one (an LLM body) is serialized once even when several attributes or exporters (the
// ATOF line of an LLM event, through the process-wide table) need it.
// Small texts are not remembered: a WeakMap entry costs more (set plus ephemeron GC work) than
// serializing a small object again, and most payloads are serialized once per span anyway.
const jsonCache = frozenJsonTexts;
/** Texts at least this long are remembered. */
export const JSON_CACHE_MIN_LENGTH = FROZEN_TEXT_MIN_LENGTH;

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
      attrs[key] = jsonText(value);
  }
}

/** JSON text of a value, tolerant of anything (never throws); large texts of frozen event objects are remembered. */
export function jsonText(value: unknown): string {
  const isObject = typeof value === "object" && value !== null;
  if (isObject) {
    if (Array.isArray(value) && value.length === 0) return "[]";
    const cached = jsonCache.get(value);
    if (cached !== undefined) return cached;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    try {
      text = deepJsonText(value as Json); // nesting too deep for V8's recursive stringify (a foreign file)
    } catch {
      return String(value);
    }
  }
  if (isObject && text.length >= JSON_CACHE_MIN_LENGTH && Object.isFrozen(value)) jsonCache.set(value as object, text);
  return text;
}
