import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { jsonText } from "./flatten.js";
import { contentText, finishKindOf, requestMessages, responseOf, type LlmMessage, type LlmResponse } from "./llm-body.js";
import * as G from "./semconv.js";

const GEN_AI_FINISH = { stop: "stop", length: "length", tool: "tool_call", filter: "content_filter" } as const;

function num(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `gen_ai.request.*` parameters and messages from the provider body . */
export function writeGenAiRequest(attrs: Attributes, body: JsonObject): void {
  const set = (key: string, value: number | undefined) => {
    if (value !== undefined) attrs[key] = value;
  };
  set(G.GEN_AI_REQUEST_TEMPERATURE, num(body["temperature"]));
  set(G.GEN_AI_REQUEST_MAX_TOKENS, num(body["max_completion_tokens"]) ?? num(body["max_tokens"]));
  set(G.GEN_AI_REQUEST_TOP_P, num(body["top_p"]));
  set(G.GEN_AI_REQUEST_TOP_K, num(body["top_k"]));
  set(G.GEN_AI_REQUEST_FREQUENCY_PENALTY, num(body["frequency_penalty"]));
  set(G.GEN_AI_REQUEST_PRESENCE_PENALTY, num(body["presence_penalty"]));
  set(G.GEN_AI_REQUEST_SEED, num(body["seed"]));
  const n = num(body["n"]);
  if (n !== undefined && n !== 1) attrs[G.GEN_AI_REQUEST_CHOICE_COUNT] = n;
  if (body["stream"] === true) attrs[G.GEN_AI_REQUEST_STREAM] = true;
  const stop = body["stop"] ?? body["stop_sequences"];
  if (typeof stop === "string") attrs[G.GEN_AI_REQUEST_STOP_SEQUENCES] = [stop];
  else if (Array.isArray(stop)) attrs[G.GEN_AI_REQUEST_STOP_SEQUENCES] = stop.filter((s): s is string => typeof s === "string");
  const system = body["system"];
  if (system !== undefined && system !== null && contentText(system) !== "") {
    attrs[G.GEN_AI_SYSTEM_INSTRUCTIONS] = jsonText([{ type: "text", content: contentText(system) }]);
  }
  // Anthropic's system prompt is in system_instructions, not in the message list.
  const messages = requestMessages(body).filter((m, i) => !(i === 0 && m.role === "system" && system !== undefined && system !== null));
  attrs[G.GEN_AI_INPUT_MESSAGES] = jsonText(messages.map(toGenAiMessage));
}

function toGenAiMessage(message: LlmMessage): JsonObject {
  const parts: Json[] = [];
  if (message.role === "tool") {
    parts.push({ type: "tool_call_response", id: message.toolCallId ?? "", response: message.toolResponse ?? null });
    return { role: "tool", parts };
  }
  if (message.text !== "") parts.push({ type: "text", content: message.text });
  for (const call of message.toolCalls) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.input });
  return { role: message.role, parts };
}

/** `gen_ai.response.*`, usage and output messages from the raw provider response . */
export function writeGenAiResponse(attrs: Attributes, data: Json): LlmResponse | undefined {
  const response = responseOf(data);
  if (!response) return undefined;
  if (response.id) attrs[G.GEN_AI_RESPONSE_ID] = response.id;
  if (response.model) attrs[G.GEN_AI_RESPONSE_MODEL] = response.model;
  let finish: string | undefined;
  if (response.finishReason !== undefined) {
    const kind = finishKindOf(response.finishReason);
    finish = kind ? GEN_AI_FINISH[kind] : response.finishReason;
    attrs[G.GEN_AI_RESPONSE_FINISH_REASONS] = [finish];
  }
  const parts: Json[] = [];
  if (response.text !== "") parts.push({ type: "text", content: response.text });
  for (const call of response.toolCalls) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.input });
  const message: JsonObject = { role: "assistant", parts };
  if (finish !== undefined) message["finish_reason"] = finish;
  attrs[G.GEN_AI_OUTPUT_MESSAGES] = jsonText([message]);
  const { usage } = response;
  if (usage.prompt !== undefined) attrs[G.GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt;
  if (usage.completion !== undefined) attrs[G.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completion;
  if (usage.cacheRead !== undefined) attrs[G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheRead;
  if (usage.cacheWrite !== undefined) attrs[G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheWrite;
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
