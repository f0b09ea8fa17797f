import { isJsonObject, type Json } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { anthropicMessagesCodec } from "./anthropic-messages.js";
import { geminiCodec } from "./gemini.js";
import { openaiChatCodec } from "./openai-chat.js";
import { openaiResponsesCodec } from "./openai-responses.js";
import type { Dialect, WireCodec } from "./types.js";

/** Every codec, sorted by schema name. */
export const WIRE_CODECS: readonly WireCodec[] = Object.freeze(
  [anthropicMessagesCodec, geminiCodec, openaiChatCodec, openaiResponsesCodec].sort((a, b) => (a.schema.name < b.schema.name ? -1 : 1)),
);

/** The dialect names `createClient({ style })` accepts, sorted. */
export const DIALECTS: readonly Dialect[] = Object.freeze(WIRE_CODECS.map((c) => c.dialect).sort());

/** The codec of a dialect; an unknown one is a caller error that names the choices. */
export function codecForDialect(dialect: string): WireCodec {
  const codec = WIRE_CODECS.find((c) => c.dialect === dialect);
  if (codec === undefined)
    throw new TypeError(`unknown provider style ${JSON.stringify(dialect)}; expected one of ${DIALECTS.map((d) => `"${d}"`).join(", ")}`);
  return codec;
}

// Every LLM event is looked up here by each exporter that reads its body: a map, not a scan.
const BY_SCHEMA_NAME = new Map(WIRE_CODECS.map((c) => [c.schema.name, c]));

/** The codec registered for a `data_schema` name (any version "1"), or undefined. */
export function codecForSchema(schema: DataSchema | null | undefined): WireCodec | undefined {
  if (!schema) return undefined;
  const codec = BY_SCHEMA_NAME.get(schema.name);
  return codec !== undefined && codec.schema.version === schema.version ? codec : undefined;
}

/** What an `llm` event says about its body: its schema, name and request/response data. */
export interface LlmEventHint {
  dataSchema?: DataSchema | null;
  name?: string;
  /** the request body (start) or response body (end) */
  body?: Json;
  which: "request" | "response";
}

/**
 * The codec for an `llm` event's body: by `data_schema`, then by relaytrace's event name,
 * then by the shape of the body (for foreign ATOF files). Undefined when nothing matches.
 */
export function codecForEvent(hint: LlmEventHint): WireCodec | undefined {
  const bySchema = codecForSchema(hint.dataSchema);
  if (bySchema) return bySchema;
  const byName = WIRE_CODECS.find((c) => c.eventName === hint.name);
  if (byName) return byName;
  const body = hint.body;
  if (!isJsonObject(body)) return undefined;
  // Most specific shapes first: Chat's `messages` is the loosest test.
  for (const codec of SHAPE_ORDER) {
    if (hint.which === "request" ? codec.looksLikeRequest(body) : codec.looksLikeResponse(body)) return codec;
  }
  return undefined;
}

const SHAPE_ORDER: readonly WireCodec[] = [geminiCodec, openaiResponsesCodec, anthropicMessagesCodec, openaiChatCodec];
