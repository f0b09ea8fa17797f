import { decodeMessage, decodeRequest, encodeMessages, encodeRequest } from "./anthropic-request.js";
import { decodeResponse, encodeResponse, encodeStream, replyBlocks, streamAssembler } from "./anthropic-response.js";
import { arr, isDict } from "./read.js";
import type { WireCodec, WireToolResult } from "./types.js";
import { joinUrl } from "./urls.js";

/** Anthropic Messages (`POST /v1/messages`): the codec, over its request and response halves. */

export const ANTHROPIC_VERSION = "2023-06-01";
export { ANTHROPIC_DEFAULT_MAX_TOKENS } from "./anthropic-request.js";

export const anthropicMessagesCodec: WireCodec = {
  dialect: "anthropic",
  schema: { name: "anthropic/messages", version: "1" },
  eventName: "anthropic.messages",
  provider: "anthropic",
  systemInTranscript: false,
  /** `{base}/v1/messages`, or `{base}/messages` when the base already ends in `/v1`. */
  endpoint(baseUrl) {
    const path = baseUrl.split(/[?#]/, 1)[0]!.replace(/\/+$/, "");
    return joinUrl(baseUrl, /\/v1$/.test(path) ? "/messages" : "/v1/messages");
  },
  authHeaders(apiKey) {
    const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
    if (apiKey) headers["x-api-key"] = apiKey;
    return headers;
  },
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeMessage),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) =>
    Array.isArray(b.messages) &&
    (b.system !== undefined ||
      arr(b.messages).some(
        (m) =>
          isDict(m) && Array.isArray(m.content) && m.content.some((c) => isDict(c) && (c.type === "tool_use" || c.type === "tool_result")),
      )),
  looksLikeResponse: (b) => Array.isArray(b.content) && (b.type === "message" || b.stop_reason !== undefined),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", content: text }),
  assistantMessages: (r) => [{ role: "assistant", content: replyBlocks(r) }],
  toolResultMessages(results: readonly WireToolResult[]) {
    if (results.length === 0) return [];
    return [
      { role: "user", content: results.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output, is_error: r.isError })) },
    ];
  },
  encodeResponse,
  encodeStream,
};
