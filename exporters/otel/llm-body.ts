import { isJsonObject, type Json } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import type { Attributes } from "@opentelemetry/api";
import { codecForEvent, recordedCost, requestBodyOf, sharedDecodeRequest, sharedDecodeResponse } from "../../src/wire/index.js";
import type { FinishKind, WireCodec, WireMessage, WirePart, WireRequest, WireResponse, WireToolCall } from "../../src/wire/index.js";

/** Provider bodies inside LLM events, read through the wire codecs, in the shape the projections render. */

/** One message as the projections list it (a tool result is its own `tool` message). */
export interface LlmMessage {
  role: string;
  text: string;
  toolCallId?: string;
  toolCalls: WireToolCall[];
  /** Set on `tool` messages: the tool's output as sent. */
  toolResponse?: Json;
  /** The decoded parts of the message (reasoning and media among them), when it came from a transcript entry. */
  parts?: readonly WirePart[];
}

/** The decoded request of an LLM start, with the codec that read it; undefined when no dialect matches. */
export function llmRequestOf(start: ScopeEvent): { codec: WireCodec; request: WireRequest } | undefined {
  const body = requestBodyOf(start.data);
  if (!body) return undefined;
  const codec = codecForEvent({ dataSchema: start.data_schema, name: start.name, body, which: "request" });
  return codec ? { codec, request: sharedDecodeRequest(codec, body) } : undefined;
}

/** The decoded reply of an LLM end; undefined when the data is no reply of a known dialect. */
export function llmResponseOf(end: ScopeEvent): WireResponse | undefined {
  const data = end.data;
  if (!isJsonObject(data)) return undefined;
  const codec = codecForEvent({ dataSchema: end.data_schema, name: end.name, body: data, which: "response" });
  if (!codec || !codec.looksLikeResponse(data)) return undefined;
  return sharedDecodeResponse(codec, data);
}

/** Request messages in order: a body-level system prompt first, one `tool` message per tool result. */
export function requestMessages(request: WireRequest, withSystem = true): LlmMessage[] {
  const out: LlmMessage[] = [];
  if (withSystem && request.system !== undefined && request.system !== "")
    out.push({ role: "system", text: request.system, toolCalls: [] });
  for (const m of request.messages) out.push(...messagesOf(m));
  return out;
}

/** The messages one decoded request entry lists as: itself, or one `tool` message per tool result it holds. */
export function messagesOf(m: WireMessage): LlmMessage[] {
  if (m.role === "tool") {
    const out: LlmMessage[] = [];
    for (const p of m.parts) {
      if (p.type === "tool_result")
        out.push({ role: "tool", text: p.text, toolCallId: p.toolCallId, toolCalls: [], toolResponse: p.output });
    }
    return out;
  }
  const calls: WireToolCall[] = [];
  for (const p of m.parts) if (p.type === "tool_call") calls.push(p.call);
  return [{ role: m.role, text: m.text, toolCalls: calls, parts: m.parts }];
}

/** A projection's finish-reason vocabulary over the wire's finish kinds; unknown raw values pass through. */
export function finishReasonIn(response: WireResponse, names: Record<FinishKind, string>): string | undefined {
  if (response.finish !== undefined) return names[response.finish];
  return response.rawFinishReason;
}

/** `<ns>.llm.cost.total` and `.currency` (full projection), when the runtime priced the call. */
export function writeLlmCost(attrs: Attributes, ns: string, end: ScopeEvent): void {
  const cost = recordedCost(end.category_profile);
  if (cost === undefined) return;
  attrs[`${ns}.llm.cost.total`] = cost.total;
  attrs[`${ns}.llm.cost.currency`] = cost.currency;
}
