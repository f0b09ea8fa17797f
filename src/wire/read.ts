import type { Json, JsonObject } from "../events/json.js";
import { WireShapeError } from "./errors.js";

/** Small readers for untrusted provider JSON: they never throw, they return undefined. */

export type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function nonEmptyStr(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A finite number, else undefined. */
export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A token count: a finite non-negative number, else undefined. */
export function tokens(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Describes a value's JSON type for error messages ("null", "array", "string"...). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Arguments as JSON text: text is kept as sent, anything else is serialized (`""` for null/absent). */
export function argumentsText(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (raw === undefined || raw === null) return "";
  return JSON.stringify(raw);
}

/** Arguments as a value: parsed JSON when the text parses, else the text itself; objects as they are. */
export function argumentsValue(raw: unknown): Json {
  if (typeof raw !== "string") return raw === undefined ? {} : (raw as Json);
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw) as Json;
  } catch {
    return raw;
  }
}

/** Parses argument text into an object; `{}` when empty, invalid or not an object. */
export function argumentsObject(text: string): Record<string, unknown> {
  const value = argumentsValue(text);
  return isDict(value) ? value : {};
}

/** Text of a content value: a string, or the text parts of a parts array joined by `joiner`. */
export function partsText(content: unknown, joiner: string, textTypes: ReadonlySet<string> = TEXT_TYPES): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const part of content) {
    if (typeof part === "string") out.push(part);
    else if (isDict(part)) {
      const type = part.type;
      if (type !== undefined && !(typeof type === "string" && textTypes.has(type))) continue;
      const text = str(part.text) ?? (type === "refusal" ? str(part.refusal) : undefined);
      if (text !== undefined) out.push(text);
    }
  }
  return out.join(joiner);
}

const TEXT_TYPES: ReadonlySet<string> = new Set(["text", "refusal", "input_text", "output_text"]);

/** A provider error payload's message (`{error: {...}}`, `{type:"error", error}`), or undefined. */
export function errorEnvelopeMessage(body: unknown): string | undefined {
  if (!isDict(body)) return undefined;
  const err = body.error;
  if (typeof err === "string") return err;
  if (isDict(err)) {
    const msg = str(err.message);
    const type = str(err.type) ?? str(err.status) ?? str(err.code);
    if (msg !== undefined) return type !== undefined ? `${type}: ${msg}` : msg;
    return JSON.stringify(err).slice(0, 200);
  }
  return undefined;
}

/** A JSON object copy safe to embed in another document. */
export function asObject(value: unknown): JsonObject {
  return isDict(value) ? (value as JsonObject) : {};
}

/** One stream event's JSON object; a WireShapeError naming `what` when it is not one. */
export function parseChunk(data: string, what: string): Dict {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new WireShapeError(`${what} is not JSON: ${preview(data)}`);
  }
  if (!isDict(chunk)) throw new WireShapeError(`${what} is not a JSON object: ${preview(data)}`);
  return chunk;
}

/** Short, single-line preview of a body for error messages. */
export function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
