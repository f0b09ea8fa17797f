import type { JsonObject } from "../events/json.js";
import { isDict } from "./read.js";
import type { WireRequest } from "./types.js";

/** The kind of output a request asks for, where the body says so (the GenAI `gen_ai.output.type`). */
export type RequestedOutputType = "text" | "json" | "image" | "speech";

const JSON_FORMATS = new Set(["json_object", "json_schema"]);

/** A `{ type }` format object's kind: json for the JSON formats, text for "text". */
function formatKind(format: unknown): RequestedOutputType | undefined {
  if (!isDict(format)) return undefined;
  const type = format["type"];
  if (typeof type !== "string") return undefined;
  if (JSON_FORMATS.has(type)) return "json";
  return type === "text" ? "text" : undefined;
}

/** Gemini's `responseMimeType` / `responseModalities` in its generation config. */
function geminiOutputType(config: unknown): RequestedOutputType | undefined {
  if (!isDict(config)) return undefined;
  const mime = config["responseMimeType"] ?? config["response_mime_type"];
  if (mime === "application/json" || config["responseSchema"] !== undefined || config["responseJsonSchema"] !== undefined) return "json";
  const modalities = config["responseModalities"] ?? config["response_modalities"];
  if (Array.isArray(modalities) && modalities.length === 1) {
    const only = String(modalities[0]).toLowerCase();
    if (only === "image") return "image";
    if (only === "audio") return "speech";
    if (only === "text") return "text";
  }
  return typeof mime === "string" && mime.startsWith("text/") ? "text" : undefined;
}

/**
 * The output type a request asks for, read from its parameters in any dialect: OpenAI Chat
 * `response_format` (or `modalities: ["audio"]`), Responses `text.format`, Anthropic
 * `output_format`, Gemini `generationConfig`. Undefined when the request does not say.
 */
export function requestedOutputType(request: WireRequest): RequestedOutputType | undefined {
  const p: JsonObject = request.parameters;
  const text = p["text"];
  return (
    formatKind(p["response_format"]) ??
    (isDict(text) ? formatKind(text["format"]) : undefined) ??
    formatKind(p["output_format"]) ??
    geminiOutputType(p["generationConfig"] ?? p["generation_config"]) ??
    (Array.isArray(p["modalities"]) && p["modalities"].includes("audio") ? "speech" : undefined)
  );
}
