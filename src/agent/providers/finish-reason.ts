import type { FinishReason } from "./types.js";

/**
 * One mapping for both dialects: any tool call wins, then
 * `max_tokens`/`length` → length, `refusal`/`content_filter` → content_filter, else stop.
 */
export function mapFinishReason(raw: string | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool_calls";
  switch (raw) {
    case "length":
    case "max_tokens":
      return "length";
    case "content_filter":
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
