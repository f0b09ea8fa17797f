import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { META_TIME_PER_OUTPUT_CHUNK_MS, META_TIME_TO_FIRST_CHUNK_MS } from "../../src/events/wire-names.js";
import { requestedOutputType, type WireMessage, type WireRequest, type WireResponse } from "../../src/wire/index.js";
import { jsonText } from "./flatten.js";
import { genAiExtraParts } from "./gen-ai-parts.js";
import { finishReasonIn, llmResponseOf, messagesOf, type LlmMessage } from "./llm-body.js";
import type { GenAiConventions } from "./env.js";
import * as G from "./semconv.js";
import { GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS } from "./semconv-genai-0.1.js";

const GEN_AI_FINISH = { stop: "stop", length: "length", tool_calls: "tool_call", content_filter: "content_filter" } as const;

function num(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `gen_ai.request.*` parameters and messages from the decoded request. */
export function writeGenAiRequest(attrs: Attributes, request: WireRequest, conventions: GenAiConventions = "1.41"): void {
  const set = (key: string, value: number | undefined) => {
    if (value !== undefined) attrs[key] = value;
  };
  const s = request.settings;
  set(G.GEN_AI_REQUEST_TEMPERATURE, s.temperature);
  set(G.GEN_AI_REQUEST_MAX_TOKENS, s.maxTokens);
  set(G.GEN_AI_REQUEST_TOP_P, s.topP);
  // v0.1.0 types top_k as an int: a fractional value has no int to be.
  set(G.GEN_AI_REQUEST_TOP_K, conventions === "0.1.0" && !Number.isInteger(s.topK) ? undefined : s.topK);
  set(G.GEN_AI_REQUEST_FREQUENCY_PENALTY, s.frequencyPenalty);
  set(G.GEN_AI_REQUEST_PRESENCE_PENALTY, s.presencePenalty);
  set(G.GEN_AI_REQUEST_SEED, s.seed);
  if (s.choiceCount !== undefined && s.choiceCount !== 1) attrs[G.GEN_AI_REQUEST_CHOICE_COUNT] = s.choiceCount;
  if (s.stream === true) attrs[G.GEN_AI_REQUEST_STREAM] = true;
  if (s.stop !== undefined) attrs[G.GEN_AI_REQUEST_STOP_SEQUENCES] = s.stop;
  const outputType = requestedOutputType(request);
  if (outputType !== undefined) attrs[G.GEN_AI_OUTPUT_TYPE] = outputType;
  // A body-level system prompt (Anthropic, Gemini, Responses) goes to system_instructions, not the message list.
  if (request.system !== undefined && request.system !== "") {
    attrs[G.GEN_AI_SYSTEM_INSTRUCTIONS] = jsonText([{ type: "text", content: request.system }]);
  }
  attrs[G.GEN_AI_INPUT_MESSAGES] = inputMessagesText(request);
}

/**
 * The JSON text of each decoded request entry's GenAI messages. A transcript entry the loop froze
 * decodes to the same object in every later request of the run (wire/recurring-decode), so its
 * text is built once: a call's `gen_ai.input.messages` then joins remembered texts instead of
 * re-encoding the whole conversation, whose cost would grow with every turn.
 */
const entryTexts = new WeakMap<WireMessage, string>();

/** `gen_ai.input.messages`: the same text as `jsonText` of the message list, built entry by entry. */
function inputMessagesText(request: WireRequest): string {
  let text = "[";
  for (const entry of request.messages) {
    let part = entryTexts.get(entry);
    if (part === undefined) {
      part = messagesOf(entry)
        .map((m) => jsonText(toGenAiMessage(m)))
        .join(",");
      entryTexts.set(entry, part);
    }
    if (part !== "") text += (text.length > 1 ? "," : "") + part;
  }
  return text + "]";
}

function toGenAiMessage(message: LlmMessage): JsonObject {
  const parts: Json[] = [];
  if (message.role === "tool") {
    parts.push({ type: "tool_call_response", id: message.toolCallId ?? "", response: message.toolResponse ?? null });
    return { role: "tool", parts };
  }
  const extra = message.parts ? genAiExtraParts(message.parts) : undefined;
  if (extra) parts.push(...extra.reasoning);
  if (message.text !== "") parts.push({ type: "text", content: message.text });
  if (extra) parts.push(...extra.media);
  for (const call of message.toolCalls) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.input });
  return { role: message.role, parts };
}

/** `gen_ai.response.*`, usage and output messages from the decoded reply. */
export function writeGenAiResponse(attrs: Attributes, end: ScopeEvent, conventions: GenAiConventions = "1.41"): WireResponse | undefined {
  const firstChunk = timeToFirstChunkOf(end);
  if (firstChunk !== undefined) attrs[G.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = firstChunk;
  const response = llmResponseOf(end);
  if (!response) return undefined;
  if (response.id) attrs[G.GEN_AI_RESPONSE_ID] = response.id;
  if (response.model) attrs[G.GEN_AI_RESPONSE_MODEL] = response.model;
  const finish = finishReasonIn(response, GEN_AI_FINISH);
  if (finish !== undefined) attrs[G.GEN_AI_RESPONSE_FINISH_REASONS] = [finish];
  const parts: Json[] = [];
  const extra = genAiExtraParts(response.parts);
  // A reply whose parts were not kept still has its joined reasoning text.
  if (extra.reasoning.length === 0 && response.reasoning) extra.reasoning.push({ type: "reasoning", content: response.reasoning });
  parts.push(...extra.reasoning);
  if (response.text !== "") parts.push({ type: "text", content: response.text });
  parts.push(...extra.media);
  for (const call of response.toolCalls) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.input });
  const message: JsonObject = { role: "assistant", parts };
  if (finish !== undefined) message["finish_reason"] = finish;
  attrs[G.GEN_AI_OUTPUT_MESSAGES] = jsonText([message]);
  const usage = response.usage ?? {};
  if (usage.inputTokens !== undefined) attrs[G.GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens;
  if (usage.outputTokens !== undefined) attrs[G.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
  if (usage.cacheReadTokens !== undefined) attrs[G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) {
    attrs[conventions === "0.1.0" ? GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS : G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] =
      usage.cacheWriteTokens;
  }
  if (usage.reasoningTokens !== undefined) attrs[G.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
  return response;
}

/** Usage-only end for embedders (`usage.prompt_tokens` / `usage.input_tokens`). */
export function writeEmbeddingUsage(attrs: Attributes, data: Json): void {
  if (!isJsonObject(data)) return;
  if (typeof data["model"] === "string") attrs[G.GEN_AI_RESPONSE_MODEL] = data["model"];
  const usage = isJsonObject(data["usage"]) ? data["usage"] : {};
  const input = num(usage["prompt_tokens"]) ?? num(usage["input_tokens"]);
  if (input !== undefined) attrs[G.GEN_AI_USAGE_INPUT_TOKENS] = input;
}

/** `gen_ai.response.time_to_first_chunk` (seconds) of a streamed call, from the end event's metadata. */
export function timeToFirstChunkOf(end: ScopeEvent): number | undefined {
  const ms = isJsonObject(end.metadata) ? num(end.metadata[META_TIME_TO_FIRST_CHUNK_MS]) : undefined;
  return ms === undefined || ms < 0 ? undefined : ms / 1000;
}

/**
 * The time between output chunks (seconds) of a streamed call, one per chunk after the first,
 * from the end event's metadata; entries that are not non-negative finite numbers are skipped.
 */
export function timesPerOutputChunkOf(end: ScopeEvent): number[] {
  const gaps = isJsonObject(end.metadata) ? end.metadata[META_TIME_PER_OUTPUT_CHUNK_MS] : undefined;
  if (!Array.isArray(gaps)) return [];
  const out: number[] = [];
  for (const ms of gaps) if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) out.push(ms / 1000);
  return out;
}
