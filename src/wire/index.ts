export type {
  Dialect,
  EncodeRequestOptions,
  FinishKind,
  StreamAssembler,
  WireCodec,
  WireMessage,
  WirePart,
  WireRequest,
  WireResponse,
  WireRole,
  WireSettings,
  WireStreamEvent,
  WireToolCall,
  WireToolChoice,
  WireToolDef,
  WireToolResult,
  WireUsage,
} from "./types.js";
export { WireShapeError, WireStreamError } from "./errors.js";
export { finishKindOf, replyFinish } from "./finish.js";
export { cachedTokensOf } from "./usage.js";
export { mediaKindOf, mediaSourceOf } from "./media.js";
export type { WireMediaKind, WireMediaSource } from "./media.js";
export { requestedOutputType } from "./output-type.js";
export { requestBodyOf } from "./request-body.js";
export type { RequestedOutputType } from "./output-type.js";
export { openaiChatCodec } from "./openai-chat.js";
export { openaiResponsesCodec } from "./openai-responses.js";
export { geminiCodec } from "./gemini.js";
export { anthropicMessagesCodec, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION } from "./anthropic-messages.js";
export { sharedDecodeRequest, sharedDecodeResponse } from "./shared-decode.js";
export { codecForDialect, codecForEvent, codecForSchema, DIALECTS, WIRE_CODECS } from "./registry.js";
export type { LlmEventHint } from "./registry.js";
export { checkPricingCatalog, costOf, costRecord, loadPricingCatalog, priceEntryFor, recordedCost } from "./pricing.js";
export type { LlmCost, PricingCatalog, PricingEntry } from "./pricing.js";
