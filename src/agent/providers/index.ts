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
export { anthropicCodec, ANTHROPIC_ROUTE, codecFor, openaiCodec, OPENAI_ROUTE, providerCodec } from "./codec.js";
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
