export type {
  BodyOptions,
  FinishReason,
  ParsedToolCall,
  ParsedTurn,
  ProviderCodec,
  ProviderStyle,
  SseEvent,
  StreamDelta,
  ToolDeclaration,
  ToolResultEntry,
  Usage,
} from "./types.js";
export { openaiCodec, OPENAI_ROUTE } from "./openai-codec.js";
export { anthropicCodec, ANTHROPIC_ROUTE } from "./anthropic-codec.js";
export { codecFor } from "./codecs.js";
export { openAiUrl, openAiTools, openAiUsage } from "./openai-shared.js";
export { anthropicUrl, anthropicTools, anthropicUsage, ANTHROPIC_VERSION, ANTHROPIC_DEFAULT_MAX_TOKENS } from "./anthropic-shared.js";
export { mapFinishReason } from "./finish-reason.js";
export { parseOpenAiStream } from "./openai-stream.js";
export { parseAnthropicStream } from "./anthropic-stream.js";
export { parseSse } from "./sse.js";
export { postJson, postStream } from "./transport.js";
export type { PostJsonResult, PostOptions, RetryInfo, StreamResponse } from "./transport.js";
export { abortableSleep, backoffMs, headerValue, retryAfterMs } from "./retry-policy.js";
export { mergeHeaders } from "./headers.js";
export {
  isRetryableStatus,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderResponseError,
  ProviderTimeoutError,
} from "./errors.js";
export type { ProviderErrorCode } from "./errors.js";
