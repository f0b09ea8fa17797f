import type { Json, JsonObject } from "../../src/events/json.js";
import { mediaSourceOf, type WireMediaKind, type WirePart } from "../../src/wire/index.js";

/** The GenAI message schema's modalities; a file or unknown kind has none. */
const MODALITIES: ReadonlySet<WireMediaKind> = new Set(["image", "audio", "video"]);

/**
 * A media part as the GenAI message schemas define it: `blob` (inline bytes, base64), `uri` or
 * `file` (a provider file id), with `modality` and `mime_type` where known. A shape no dialect
 * defines is kept as a generic part of its own type, never dropped.
 */
export function genAiMediaPart(raw: Json): JsonObject {
  const source = mediaSourceOf(raw);
  if (source === undefined) {
    const type = typeof raw === "object" && raw !== null && !Array.isArray(raw) && typeof raw["type"] === "string" ? raw["type"] : "media";
    return { type, content: raw };
  }
  const part: JsonObject = { type: source.via === "inline" ? "blob" : source.via };
  if (MODALITIES.has(source.kind)) part["modality"] = source.kind;
  if (source.mimeType !== undefined) part["mime_type"] = source.mimeType;
  if (source.via === "inline") part["content"] = source.data;
  else if (source.via === "uri") part["uri"] = source.uri;
  else part["file_id"] = source.fileId;
  return part;
}

/** Reasoning and media parts of a message, in order, as GenAI message parts. */
export function genAiExtraParts(parts: readonly WirePart[]): { reasoning: JsonObject[]; media: JsonObject[] } {
  const reasoning: JsonObject[] = [];
  const media: JsonObject[] = [];
  for (const p of parts) {
    if (p.type === "reasoning" && p.text !== "") reasoning.push({ type: "reasoning", content: p.text });
    else if (p.type === "media") media.push(genAiMediaPart(p.raw));
  }
  return { reasoning, media };
}
