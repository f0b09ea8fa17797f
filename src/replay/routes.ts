import { anthropicMessagesCodec } from "../wire/anthropic-messages.js";
import { geminiCodec } from "../wire/gemini.js";
import { openaiChatCodec } from "../wire/openai-chat.js";
import { openaiResponsesCodec } from "../wire/openai-responses.js";
import type { WireCodec } from "../wire/types.js";

/** What a request path asks for: the dialect, and whether the path itself asks for a stream (Gemini). */
export interface Route {
  codec: WireCodec;
  streamPath: boolean;
}

/**
 * The dialect of a request, by the end of its path, so any base URL prefix works:
 * `…/chat/completions`, `…/responses`, `…/messages`, `…/models/{model}:generateContent` and
 * `…:streamGenerateContent`. Undefined for any other path.
 */
export function routeOf(url: string): Route | undefined {
  const path = url.split("?")[0]!.replace(/\/+$/, "");
  if (path.endsWith("/chat/completions")) return { codec: openaiChatCodec, streamPath: false };
  if (path.endsWith("/responses")) return { codec: openaiResponsesCodec, streamPath: false };
  if (path.endsWith("/messages")) return { codec: anthropicMessagesCodec, streamPath: false };
  if (path.endsWith(":streamGenerateContent")) return { codec: geminiCodec, streamPath: true };
  if (path.endsWith(":generateContent")) return { codec: geminiCodec, streamPath: false };
  return undefined;
}
