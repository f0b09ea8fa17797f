import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { AtifContentPart, AtifImageSource, AtifMessage } from "./types.js";

const MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** Providers and the runtime wrap bodies as `{headers, content}`; the body is `content` when both keys are present. */
export function unwrapBody(data: Json | undefined): Json {
  if (isJsonObject(data) && "headers" in data && "content" in data) return data["content"] ?? null;
  return data ?? null;
}

/** The part as an ATIF ContentPart, or undefined when it is not one (e.g. a base64 Anthropic image). */
export function toContentPart(part: Json): AtifContentPart | undefined {
  if (!isJsonObject(part)) return undefined;
  if (part["type"] === "text" && typeof part["text"] === "string") return { type: "text", text: part["text"] };
  const source = part["source"];
  if (part["type"] === "image" && isJsonObject(source)) {
    const mediaType = source["media_type"];
    const path = source["path"];
    if (typeof mediaType === "string" && MEDIA_TYPES.has(mediaType) && typeof path === "string") {
      return { type: "image", source: { media_type: mediaType as AtifImageSource["media_type"], path } };
    }
  }
  return undefined;
}

/** True when `value` is already a valid ATIF ContentPart array (closed objects, exclusivity rules). */
export function isContentPartArray(value: Json): value is Json[] {
  if (!Array.isArray(value)) return false;
  return value.every((part) => {
    if (!isJsonObject(part)) return false;
    const keys = Object.keys(part);
    if (part["type"] === "text") return typeof part["text"] === "string" && keys.every((k) => k === "type" || k === "text");
    if (part["type"] === "image") return toContentPart(part) !== undefined && keys.every((k) => k === "type" || k === "source");
    return false;
  });
}

function textOf(part: Json): string | undefined {
  if (typeof part === "string") return part;
  if (isJsonObject(part) && typeof part["text"] === "string") return part["text"];
  return undefined;
}

/**
 * Message content → ATIF message: strings are copied; a parts array becomes ContentParts when every
 * part converts, otherwise its text pieces are joined into one string.
 */
export function toAtifMessage(content: Json | undefined, joiner = "\n"): AtifMessage {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts = content.map(toContentPart);
    if (parts.length > 0 && parts.every((p): p is AtifContentPart => p !== undefined)) return parts;
    return content
      .map(textOf)
      .filter((t): t is string => t !== undefined)
      .join(joiner);
  }
  return JSON.stringify(content);
}

// Keys that usually carry the human-readable part of a scope's input or output.
const SUMMARY_KEYS = ["text", "prompt", "input", "query", "response", "output", "answer", "result"];

/** A short message for a scope payload (used only by the fallback for streams without LLM events). */
export function summarizePayload(data: Json): string | undefined {
  if (data === null || data === undefined) return undefined;
  if (typeof data === "string") return data;
  if (isJsonObject(data)) {
    for (const key of SUMMARY_KEYS) if (typeof data[key] === "string") return data[key] as string;
    const values = Object.values(data);
    if (values.length === 1 && typeof values[0] === "string") return values[0];
  }
  return JSON.stringify(data);
}

let shareFrozen = false;

/**
 * Runs `fn` (synchronous) with `cloneJson` handing frozen values back as they are. For the
 * exporter: delivered events are deep-frozen, and its documents are only validated, written and
 * deep-copied by `toJSON()`, so sharing a payload cannot let anyone change it. `atofToAtif`
 * called directly still copies, since its caller may edit the document it gets.
 */
export function sharingFrozenPayloads<T>(fn: () => T): T {
  const previous = shareFrozen;
  shareFrozen = true;
  try {
    return fn();
  } finally {
    shareFrozen = previous;
  }
}

/**
 * Whether documents being built may share what the exporter's readers share (see
 * sharingFrozenPayloads): frozen payloads, and values decoded once from them (a tool call's parsed
 * arguments, a usage's extra keys), which no reader mutates.
 */
export function sharingPayloads(): boolean {
  return shareFrozen;
}

/** Deep copy through JSON, so the document never aliases (frozen) event payloads (see sharingFrozenPayloads). */
export function cloneJson<T extends Json | JsonObject>(value: T): T {
  if (shareFrozen && typeof value === "object" && value !== null && Object.isFrozen(value)) return value;
  return JSON.parse(JSON.stringify(value)) as T;
}
