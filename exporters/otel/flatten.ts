import type { Attributes } from "@opentelemetry/api";
import type { Json } from "../../src/events/json.js";
import { FROZEN_TEXT_MIN_LENGTH, frozenJsonTexts, jsonText as deepJsonText } from "../../src/events/json-text.js";
import { isLongLived } from "../../src/events/long-lived-json.js";

/**
 * Writes `value` under `prefix`: objects give one attribute per top-level key, nested
 * objects/arrays become JSON text, scalars keep their type, null and non-finite numbers vanish.
 */
export function flattenInto(attrs: Attributes, prefix: string, value: Json | undefined): void {
  flattenUnder(attrs, prefixNamed(prefix), value);
}

// Attribute names repeat from span to span: building `prefix.key` once keeps one string per name
// instead of a fresh concatenation (and hash) per attribute. Bounded per prefix.
const MAX_KEYS_PER_PREFIX = 1024;
const MAX_PREFIXES = 256;

/** The attribute names under one prefix, `prefix.key`, each built once (bounded). */
export class AttributePrefix {
  private readonly keys = new Map<string, string>();

  constructor(readonly prefix: string) {}

  key(name: string): string {
    let full = this.keys.get(name);
    if (full === undefined) {
      full = `${this.prefix}.${name}`;
      if (this.keys.size < MAX_KEYS_PER_PREFIX) this.keys.set(name, full);
    }
    return full;
  }
}

const prefixes = new Map<string, AttributePrefix>();

/** The shared AttributePrefix of `prefix` (past MAX_PREFIXES prefixes, a fresh one that is not kept). */
function prefixNamed(prefix: string): AttributePrefix {
  let keys = prefixes.get(prefix);
  if (keys === undefined) {
    keys = new AttributePrefix(prefix);
    if (prefixes.size < MAX_PREFIXES) prefixes.set(prefix, keys);
  }
  return keys;
}

/** `prefix.key`, one string per pair (attribute names repeat from span to span). */
export function attributeKey(prefix: string, key: string): string {
  return prefixNamed(prefix).key(key);
}

/** `flattenInto` with the prefix's names built once. */
export function flattenUnder(attrs: Attributes, prefix: AttributePrefix, value: Json | undefined): void {
  if (value === null || value === undefined) return;
  if (typeof value === "object" && !Array.isArray(value)) {
    for (const key of Object.keys(value)) setScalarOrJson(attrs, prefix.key(key), value[key]);
    return;
  }
  setScalarOrJson(attrs, prefix.prefix, value);
}

/** A prefix and its alias, written together: a member's two names are found by one lookup (bounded). */
export class AliasedPrefixes {
  private readonly names = new Map<string, readonly [string, string]>();

  constructor(
    readonly first: AttributePrefix,
    readonly second: AttributePrefix,
  ) {}

  /** `[first.key(name), second.key(name)]`. */
  keys(name: string): readonly [string, string] {
    let both = this.names.get(name);
    if (both === undefined) {
      both = [this.first.key(name), this.second.key(name)];
      if (this.names.size < MAX_KEYS_PER_PREFIX) this.names.set(name, both);
    }
    return both;
  }
}

/**
 * `flattenInto(attrs, first, value)` then `flattenInto(attrs, second, value)` (an alias), with
 * each member's attribute value (the JSON text of a nested one) computed once for both.
 */
export function flattenTwice(attrs: Attributes, prefixes: AliasedPrefixes, value: Json | undefined): void {
  if (value === null || value === undefined) return;
  if (typeof value !== "object" || Array.isArray(value)) {
    const single = attributeValue(value);
    if (single === undefined) return;
    attrs[prefixes.first.prefix] = single;
    attrs[prefixes.second.prefix] = single;
    return;
  }
  const names = Object.keys(value);
  // All first names, then all second names: the attributes keep the order of two flattenInto calls.
  const written: (readonly [string, string] | undefined)[] = new Array(names.length);
  const values: (string | number | boolean | undefined)[] = new Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const member = attributeValue(value[names[i]!]);
    if (member === undefined) continue;
    const keys = prefixes.keys(names[i]!);
    written[i] = keys;
    values[i] = member;
    attrs[keys[0]] = member;
  }
  for (let i = 0; i < names.length; i++) {
    const keys = written[i];
    if (keys !== undefined) attrs[keys[1]] = values[i]!;
  }
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
  const single = attributeValue(value);
  if (single !== undefined) attrs[key] = single;
}

/** A member's attribute value: scalars keep their type, objects/arrays become JSON text, null and non-finite numbers none. */
function attributeValue(value: Json | undefined): string | number | boolean | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : undefined;
    default:
      return value === null || value === undefined ? undefined : jsonText(value);
  }
}

/**
 * jsonText that keeps the text of the last small frozen object it was given: successful calls
 * without metadata of their own all end with one shared frozen metadata object, whose text is
 * then computed once instead of once per span. (Large texts are remembered by jsonText itself.)
 */
export class LastJsonText {
  private value: unknown;
  private text = "";

  of(value: Json): string {
    if (value === this.value) return this.text;
    const text = jsonText(value);
    if (typeof value === "object" && value !== null && text.length < JSON_CACHE_MIN_LENGTH && Object.isFrozen(value)) {
      this.value = value;
      this.text = text;
    }
    return text;
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
  // A long-lived object (a transcript message, a declared tool) comes back in the next call's body.
  if (isObject && (text.length >= JSON_CACHE_MIN_LENGTH || isLongLived(value)) && Object.isFrozen(value))
    jsonCache.set(value as object, text);
  return text;
}
