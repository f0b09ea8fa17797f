import { isJsonObject, type Json } from "../events/json.js";

/** What a media part of any dialect carries, as far as its shape tells. */
export type WireMediaKind = "image" | "audio" | "video" | "file" | "media";

const KIND_BY_TYPE: ReadonlyMap<string, WireMediaKind> = new Map([
  // OpenAI Chat Completions
  ["image_url", "image"],
  ["input_audio", "audio"],
  ["file", "file"],
  // OpenAI Responses
  ["input_image", "image"],
  ["input_file", "file"],
  ["image_generation_call", "image"],
  // Anthropic Messages
  ["image", "image"],
  ["document", "file"],
]);

function kindOfMimeType(mimeType: unknown): WireMediaKind {
  if (typeof mimeType !== "string") return "file";
  const top = mimeType.slice(0, mimeType.indexOf("/"));
  return top === "image" || top === "audio" || top === "video" ? top : "file";
}

/**
 * The kind of a `media` part's raw dialect value: by its `type` (OpenAI, Anthropic), or by the
 * MIME type of a Gemini `inlineData`/`fileData` part. Anything else is plain "media".
 */
export function mediaKindOf(raw: Json): WireMediaKind {
  if (!isJsonObject(raw)) return "media";
  const type = raw["type"];
  if (typeof type === "string") {
    const kind = KIND_BY_TYPE.get(type);
    if (kind !== undefined) return kind;
  }
  for (const key of ["inlineData", "inline_data", "fileData", "file_data"]) {
    const data = raw[key];
    if (isJsonObject(data)) return kindOfMimeType(data["mimeType"] ?? data["mime_type"]);
  }
  return "media";
}
