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

/** Where a media part's bytes are: inline (base64), behind a URI, or a provider-side file id. */
export type WireMediaSource =
  | { via: "inline"; kind: WireMediaKind; mimeType?: string; data: string }
  | { via: "uri"; kind: WireMediaKind; mimeType?: string; uri: string }
  | { via: "file"; kind: WireMediaKind; mimeType?: string; fileId: string };

const DATA_URI = /^data:([^;,]*)(?:;[^,]*)?,/;

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A URL that may be a `data:` URI: inline bytes with their MIME type, else a reference. */
function fromUrl(kind: WireMediaKind, url: string, mimeType?: string): WireMediaSource {
  const head = DATA_URI.exec(url.slice(0, 256));
  if (head) return { via: "inline", kind, mimeType: head[1] || mimeType, data: url.slice(head[0].length) };
  return { via: "uri", kind, ...(mimeType !== undefined ? { mimeType } : {}), uri: url };
}

/** Anthropic's `source` object of an image or document block. */
function anthropicSource(kind: WireMediaKind, source: Record<string, unknown>): WireMediaSource | undefined {
  const mimeType = str(source["media_type"]);
  const data = str(source["data"]);
  if (source["type"] === "base64" && data !== undefined) return { via: "inline", kind, ...(mimeType ? { mimeType } : {}), data };
  const url = str(source["url"]);
  if (url !== undefined) return fromUrl(kind, url, mimeType);
  const fileId = str(source["file_id"]);
  return fileId !== undefined ? { via: "file", kind, fileId } : undefined;
}

/** OpenAI Chat's nested objects (`image_url`, `input_audio`, `file`) and Responses' flat fields. */
function openAiSource(kind: WireMediaKind, raw: Record<string, unknown>): WireMediaSource | undefined {
  const nested = raw["image_url"] ?? raw["input_audio"] ?? raw["file"];
  const fields = isJsonObject(nested as Json) ? (nested as Record<string, unknown>) : raw;
  const url = str(fields["url"]) ?? str(raw["image_url"]) ?? str(fields["file_url"]);
  if (url !== undefined) return fromUrl(kind, url);
  const fileId = str(fields["file_id"]);
  if (fileId !== undefined) return { via: "file", kind, fileId };
  const data = str(fields["data"]) ?? str(fields["file_data"]);
  if (data === undefined) return undefined;
  const format = str(fields["format"]);
  if (data.startsWith("data:")) return fromUrl(kind, data);
  return { via: "inline", kind, ...(format !== undefined ? { mimeType: `${kind}/${format}` } : {}), data };
}

/**
 * Where the bytes of a media part of any dialect are (inline data, a URI, or a file id), with
 * its kind and MIME type where the part says; undefined for a shape no dialect defines.
 */
export function mediaSourceOf(raw: Json): WireMediaSource | undefined {
  if (!isJsonObject(raw)) return undefined;
  const kind = mediaKindOf(raw);
  for (const key of ["inlineData", "inline_data"]) {
    const inline = raw[key];
    if (isJsonObject(inline) && typeof inline["data"] === "string") {
      const mimeType = str(inline["mimeType"] ?? inline["mime_type"]);
      return { via: "inline", kind, ...(mimeType ? { mimeType } : {}), data: inline["data"] };
    }
  }
  for (const key of ["fileData", "file_data"]) {
    const file = raw[key];
    if (isJsonObject(file)) {
      const uri = str(file["fileUri"] ?? file["file_uri"]);
      const mimeType = str(file["mimeType"] ?? file["mime_type"]);
      if (uri !== undefined) return { via: "uri", kind, ...(mimeType ? { mimeType } : {}), uri };
    }
  }
  const source = raw["source"];
  if (isJsonObject(source)) return anthropicSource(kind, source);
  return openAiSource(kind, raw);
}
