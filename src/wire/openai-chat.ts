import { joinUrl } from "./urls.js";
import type { WireCodec, WireToolResult } from "./types.js";
import { decodeMessage, decodeRequest, encodeMessages, encodeRequest } from "./openai-chat-request.js";
import { decodeResponse, encodeResponse, encodeStream, streamAssembler } from "./openai-chat-response.js";

/** OpenAI Chat Completions (`POST /chat/completions`): the codec, over its request and response halves. */

export const openaiChatCodec: WireCodec = {
  dialect: "openai",
  schema: { name: "openai/chat-completions", version: "1" },
  eventName: "openai.chat_completions",
  provider: "openai",
  systemInTranscript: true,
  endpoint: (baseUrl) => joinUrl(baseUrl, "/chat/completions"),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeMessage),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => Array.isArray(b.messages),
  looksLikeResponse: (b) =>
    Array.isArray(b.choices) || (b.choices === undefined && (typeof b.content === "string" || Array.isArray(b.tool_calls))),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", content: text }),
  assistantMessages: (r) => encodeMessages([{ role: "assistant", parts: r.parts, text: r.text, content: null }]),
  toolResultMessages: (results: readonly WireToolResult[]) =>
    // isError is not transmitted in this dialect.
    results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.output })),
  encodeResponse,
  encodeStream,
};
