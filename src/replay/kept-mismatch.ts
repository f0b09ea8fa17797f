import type { Json } from "../events/json.js";
import { jsonTextChunks } from "../events/json-text.js";
import type { ReplayMismatch } from "./session.js";

/**
 * A value to keep, at most `limit` characters of it, as a fresh copy: a short text cut from a
 * long one (or parsed out of a large request body) may share its memory, and keeping it would
 * keep the whole.
 */
function keptValue(value: Json, limit: number): { value: Json; cut: boolean } {
  if (typeof value === "string") {
    if (value.length <= limit) return { value: copyOf(value), cut: false };
    return { value: copyOf(`${value.slice(0, limit)}… (${value.length} characters)`), cut: true };
  }
  let text = "";
  for (const chunk of jsonTextChunks(value)) {
    text += chunk;
    if (text.length > limit) return { value: copyOf(`${text.slice(0, limit)}… (JSON text cut at ${limit} characters)`), cut: true };
  }
  return { value: JSON.parse(text) as Json, cut: false };
}

function copyOf(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** The mismatch as a session keeps it: `expected` and `actual` at most `limit` characters each, copied. */
export function keptMismatch(mismatch: ReplayMismatch, limit: number): ReplayMismatch {
  const expected = keptValue(mismatch.expected, limit);
  const actual = keptValue(mismatch.actual, limit);
  return {
    call: mismatch.call,
    path: copyOf(mismatch.path),
    expected: expected.value,
    actual: actual.value,
    ...(expected.cut || actual.cut ? { truncated: true as const } : {}),
  };
}
