import type { Json } from "../events/json.js";
import { jsonTextChunks } from "../events/json-text.js";

/**
 * A value to keep, at most `limit` characters of it, as a fresh copy: a short text cut from a
 * long one (or parsed out of a large request body) may share its memory, and keeping it would
 * keep the whole.
 */
export function keptValue(value: Json, limit: number): { value: Json; cut: boolean } {
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
