import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { toJsonSafe } from "../runtime/json-safe.js";

/**
 * What every adapter knows about one model call, in one library-neutral shape, and its encoding
 * as OpenAI Chat Completions JSON: the request and response bodies every projection and ATIF
 * already read (messages, tools, choices with tool_calls, usage with cached tokens, model).
 */

/** The data schema of the bodies this module writes. */
export const CHAT_COMPLETIONS_SCHEMA: DataSchema = { name: "openai/chat-completions", version: "1" };

export interface CallToolCall {
  id: string;
  name: string;
  /** The arguments: JSON text as the model sent it, or a value. */
  arguments: string | Json;
}

export interface CallMessage {
  role: "system" | "user" | "assistant" | "tool";
  text: string;
  toolCalls?: CallToolCall[];
  /** On `tool` messages: the call this message answers. */
  toolCallId?: string;
}

export interface CallToolDefinition {
  name: string;
  description?: string;
  parameters?: Json;
}

export interface CallRequest {
  model?: string;
  messages: CallMessage[];
  tools?: CallToolDefinition[];
  /** Sampling settings already in Chat Completions names (`temperature`, `max_tokens`, …). */
  settings?: JsonObject;
  stream?: boolean;
}

export interface CallUsage {
  /** Input tokens, cached ones included. */
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
}

export type CallFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface CallResponse {
  id?: string;
  model?: string;
  text: string;
  toolCalls: CallToolCall[];
  finishReason?: CallFinishReason | string;
  usage?: CallUsage;
}

function argumentsText(args: string | Json): string {
  return typeof args === "string" ? args : JSON.stringify(toJsonSafe(args));
}

function toolCallsJson(calls: readonly CallToolCall[]): Json[] {
  return calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argumentsText(c.arguments) } }));
}

function messageJson(m: CallMessage): JsonObject {
  if (m.role === "tool") return { role: "tool", tool_call_id: m.toolCallId ?? "", content: m.text };
  const calls = m.toolCalls ?? [];
  if (m.role === "assistant" && calls.length > 0) {
    return { role: "assistant", content: m.text === "" ? null : m.text, tool_calls: toolCallsJson(calls) };
  }
  return { role: m.role, content: m.text };
}

/** The request as a Chat Completions body. */
export function chatCompletionsRequest(request: CallRequest): JsonObject {
  const body: JsonObject = {};
  if (request.model !== undefined) body.model = request.model;
  body.messages = request.messages.map(messageJson);
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: toJsonSafe(t.parameters ?? { type: "object", properties: {} }),
      },
    }));
  }
  for (const [key, value] of Object.entries(request.settings ?? {})) if (value !== null && value !== undefined) body[key] = value;
  if (request.stream) body.stream = true;
  return body;
}

/** The response as a Chat Completions body (one choice). */
export function chatCompletionsResponse(response: CallResponse): JsonObject {
  const message: JsonObject = { role: "assistant", content: response.text === "" && response.toolCalls.length > 0 ? null : response.text };
  if (response.toolCalls.length > 0) message.tool_calls = toolCallsJson(response.toolCalls);
  const finish = response.finishReason ?? (response.toolCalls.length > 0 ? "tool_calls" : "stop");
  const body: JsonObject = { object: "chat.completion" };
  if (response.id !== undefined) body.id = response.id;
  if (response.model !== undefined) body.model = response.model;
  body.choices = [{ index: 0, message, finish_reason: finish }];
  const usage = response.usage;
  if (usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)) {
    const prompt = usage.inputTokens ?? 0;
    const completion = usage.outputTokens ?? 0;
    body.usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(usage.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
    };
  }
  return body;
}

/** Text of a value a tool returned, as a `tool` message carries it. */
export function toolOutputText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(toJsonSafe(value));
}
