import { joinUrl } from "./urls.js";
import type { WireCodec, WireToolResult } from "./types.js";
import { decodeItem, decodeRequest, encodeMessages, encodeRequest } from "./openai-responses-request.js";
import { decodeResponse, encodeResponse, encodeStream, outputItems, streamAssembler } from "./openai-responses-response.js";

/**
 * OpenAI Responses (`POST /responses`): input and output items, function calls and outputs, reasoning items. The
 * codec, over its request and response halves.
 */

export const openaiResponsesCodec: WireCodec = {
  dialect: "openai-responses",
  schema: { name: "openai/responses", version: "1" },
  eventName: "openai.responses",
  provider: "openai",
  systemInTranscript: false,
  endpoint: (baseUrl) => joinUrl(baseUrl, "/responses"),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeItem),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => b.input !== undefined && b.messages === undefined && b.contents === undefined,
  looksLikeResponse: (b) => b.object === "response" || (Array.isArray(b.output) && b.choices === undefined),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", content: text }),
  assistantMessages: outputItems,
  toolResultMessages: (results: readonly WireToolResult[]) =>
    // The Responses API has no error flag on a function output.
    results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.output })),
  encodeResponse,
  encodeStream,
};
