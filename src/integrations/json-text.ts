import type { Json } from "../events/json.js";
import { toJsonSafe } from "../runtime/json-safe.js";

/** A library's JSON text read as a value (text that is not JSON stays text). */
export function parseJsonText(text: unknown): Json {
  if (typeof text !== "string") return toJsonSafe(text ?? null);
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** An error as the `error` of an end: an Error keeps its message; anything else becomes one. */
export function asError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (value !== null && typeof value === "object" && typeof (value as { message?: unknown }).message === "string") {
    return new Error((value as { message: string }).message);
  }
  return new Error(String(value));
}
