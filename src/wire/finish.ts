import type { FinishKind, WireResponse } from "./types.js";

/**
 * The one finish-reason table, for every dialect: Chat Completions `finish_reason`, Anthropic
 * `stop_reason`, Gemini `finishReason`, Responses `status` / `incomplete_details.reason`.
 */
const FINISH_TABLE: ReadonlyMap<string, FinishKind> = new Map([
  ["stop", "stop"],
  ["end_turn", "stop"],
  ["stop_sequence", "stop"],
  ["pause_turn", "stop"],
  ["completed", "stop"],
  ["STOP", "stop"],
  ["length", "length"],
  ["max_tokens", "length"],
  ["max_output_tokens", "length"],
  ["model_context_window_exceeded", "length"],
  ["MAX_TOKENS", "length"],
  ["tool_calls", "tool_calls"],
  ["function_call", "tool_calls"],
  ["tool_use", "tool_calls"],
  ["content_filter", "content_filter"],
  ["refusal", "content_filter"],
  ["SAFETY", "content_filter"],
  ["RECITATION", "content_filter"],
  ["BLOCKLIST", "content_filter"],
  ["PROHIBITED_CONTENT", "content_filter"],
  ["SPII", "content_filter"],
  ["IMAGE_SAFETY", "content_filter"],
]);

/** The kind of a raw finish reason; undefined for values the table does not know. */
export function finishKindOf(raw: string | undefined): FinishKind | undefined {
  return raw === undefined ? undefined : FINISH_TABLE.get(raw);
}

/** A reply's finish kind: any tool call wins (Gemini says STOP beside a function call), then the table. */
export function replyFinish(raw: string | undefined, hasToolCalls: boolean): FinishKind | undefined {
  return hasToolCalls ? "tool_calls" : finishKindOf(raw);
}

/** A reply's finish reason in a dialect's words: the raw one it was decoded with, else the kind's. */
export function finishOnWire(response: WireResponse, words: Record<FinishKind, string>): string {
  return response.rawFinishReason ?? words[response.finish ?? (response.toolCalls.length > 0 ? "tool_calls" : "stop")];
}
