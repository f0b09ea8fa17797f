import type { Json, JsonObject } from "../events/json.js";
import { isDict } from "./read.js";
import { joinUrl } from "./urls.js";
import type { WireCodec, WireToolResult } from "./types.js";
import { decodeContent, decodeRequest, encodeMessages, encodeRequest } from "./gemini-request.js";
import { decodeResponse, encodeResponse, encodeStream, replyParts, streamAssembler } from "./gemini-response.js";

/**
 * Gemini `generateContent` / `streamGenerateContent`: contents and parts, functionCall / functionResponse,
 * usageMetadata. The codec, over its request and response halves.
 */

export const geminiCodec: WireCodec = {
  dialect: "gemini",
  schema: { name: "gemini/generate-content", version: "1" },
  eventName: "gemini.generate_content",
  provider: "google",
  systemInTranscript: false,
  /** `{base}/v1beta/models/{model}:generateContent`, or under the base's own `/v1beta` or `/v1`; streams add `alt=sse`. */
  endpoint(baseUrl, model, stream) {
    const path = baseUrl.split(/[?#]/, 1)[0]!.replace(/\/+$/, "");
    const version = /\/v1(beta\d*)?$/.test(path) ? "" : "/v1beta";
    const url = joinUrl(baseUrl, `${version}/models/${encodeURIComponent(model)}:${stream ? "streamGenerateContent" : "generateContent"}`);
    if (!stream) return url;
    const hash = url.indexOf("#");
    const head = hash === -1 ? url : url.slice(0, hash);
    return `${head}${head.includes("?") ? "&" : "?"}alt=sse${hash === -1 ? "" : url.slice(hash)}`;
  },
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { "x-goog-api-key": apiKey } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeContent),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => Array.isArray(b.contents),
  looksLikeResponse: (b) => Array.isArray(b.candidates) || isDict(b.usageMetadata) || isDict(b.promptFeedback),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", parts: [{ text }] }),
  assistantMessages: (r) => [{ role: "model", parts: replyParts(r) }],
  toolResultMessages(results: readonly WireToolResult[]) {
    if (results.length === 0) return [];
    const parts: Json[] = results.map((r) => {
      const response: JsonObject = r.isError ? { error: r.output } : { output: r.output };
      return { functionResponse: { id: r.id, name: r.name, response } };
    });
    return [{ role: "user", parts }];
  },
  encodeResponse,
  encodeStream,
};
