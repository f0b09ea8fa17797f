import type { Json, JsonObject } from "../events/json.js";

/** Deeper than this, a value is replaced whole: it cannot be checked, so it must not pass. */
export const MAX_WALK_DEPTH = 200;
export const UNCHECKED_MARKER = "[redacted:too_deep]";

/**
 * Returns a copy of `value` with `redact` applied to every string, object keys included (a key
 * such as `"alice@example.com": 3` is PII too). Keys that collapse to the same text after
 * redaction get a `#2`, `#3`… suffix so no entry is lost. Unchanged subtrees are shared.
 */
export function redactJson(value: Json, redact: (text: string) => string, depth = 0): Json {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_WALK_DEPTH) return UNCHECKED_MARKER;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = redactJson(item, redact, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: JsonObject = {};
  // Next free suffix per redacted key: 4,000 addresses collapsing to one token stay linear.
  const nextSuffix = new Map<string, number>();
  const taken = (key: string): boolean =>
    Object.prototype.hasOwnProperty.call(out, key) || Object.prototype.hasOwnProperty.call(value, key);
  for (const [key, item] of Object.entries(value)) {
    let newKey = redact(key);
    if (newKey !== key) {
      changed = true;
      const base = newKey;
      let n = nextSuffix.get(base) ?? 2;
      while (taken(newKey)) newKey = `${base}#${n++}`;
      nextSuffix.set(base, n);
    }
    const next = redactJson(item, redact, depth + 1);
    if (next !== item) changed = true;
    // defineProperty keeps a JSON "__proto__" key as data instead of changing the prototype.
    if (newKey === "__proto__") Object.defineProperty(out, newKey, { value: next, enumerable: true, writable: true, configurable: true });
    else out[newKey] = next;
  }
  return changed ? out : value;
}
