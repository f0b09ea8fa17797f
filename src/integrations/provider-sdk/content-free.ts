import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Dialect, WireCodec, WirePart, WireResponse } from "../../wire/index.js";

/**
 * What `captureContent: false` leaves of a call: the request without its transcript and system
 * prompt, the reply without its text, reasoning and tool-call arguments. The rest — model,
 * settings, tool definitions, tool names and call ids, usage, finish reason — stays, so the
 * projections, ATIF and cost still work. Done before the events are built, so no exporter, file
 * or subscriber ever sees a message.
 */

/** The keys that hold messages in each dialect's request body (emptied, or removed for the system prompt). */
const TRANSCRIPT: Record<Dialect | "embeddings", { empty: readonly string[]; drop: readonly string[] }> = {
  openai: { empty: ["messages"], drop: [] },
  "openai-responses": { empty: ["input"], drop: ["instructions"] },
  anthropic: { empty: ["messages"], drop: ["system"] },
  gemini: { empty: ["contents"], drop: ["systemInstruction", "system_instruction"] },
  embeddings: { empty: [], drop: ["input"] },
};

/** The request body without its messages (a JSON copy; the app's own body is never changed). */
export function contentFreeRequest(dialect: Dialect | "embeddings", body: unknown): Json {
  const copy = toJsonSafe(body);
  if (!isJsonObject(copy)) return null;
  const keys = TRANSCRIPT[dialect];
  for (const key of keys.empty) if (key in copy) copy[key] = [];
  for (const key of keys.drop) delete copy[key];
  return copy;
}

function withoutContent(part: WirePart): WirePart | undefined {
  switch (part.type) {
    case "text":
    case "reasoning":
      return { ...part, text: "" };
    case "tool_call":
      return { type: "tool_call", call: { id: part.call.id, name: part.call.name, arguments: "", input: null } };
    default:
      // media and tool results carry content and nothing a reader needs without it
      return undefined;
  }
}

/**
 * A reply without its content, re-encoded by the dialect's codec from the decoded reply (its
 * verbatim items dropped: they hold the content too). Fails closed: a reply the codec cannot read
 * is recorded as null rather than as it came.
 */
export function contentFreeReply(codec: WireCodec, reply: Json): Json {
  try {
    const decoded = codec.decodeResponse(reply);
    const parts = decoded.parts.flatMap((p) => withoutContent(p) ?? []);
    const stripped: WireResponse = {
      ...decoded,
      parts,
      text: "",
      toolCalls: parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : [])),
    };
    delete stripped.native;
    delete stripped.reasoning;
    return codec.encodeResponse(stripped);
  } catch {
    return null;
  }
}

/** An embeddings reply with each vector replaced by its length: the vectors are large and say nothing a trace needs. */
export function embeddingsReply(reply: Json): Json {
  if (!isJsonObject(reply) || !Array.isArray(reply.data)) return reply;
  const data = reply.data.map((entry): Json => {
    if (!isJsonObject(entry)) return entry;
    const { embedding, ...rest } = entry;
    const out: JsonObject = { ...rest };
    const dimensions = dimensionsOf(embedding);
    if (dimensions !== undefined) out.embedding_dimensions = dimensions;
    return out;
  });
  return { ...reply, data };
}

/** A vector's length: an array of numbers, or base64 of float32 values (the SDKs' default wire form). */
function dimensionsOf(embedding: Json | undefined): number | undefined {
  if (Array.isArray(embedding)) return embedding.length;
  if (typeof embedding !== "string") return undefined;
  const padding = embedding.endsWith("==") ? 2 : embedding.endsWith("=") ? 1 : 0;
  return Math.floor(((embedding.length * 3) / 4 - padding) / 4);
}
