import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import { toJsonSafe } from "../runtime/json-safe.js";
import {
  openaiChatCodec,
  type FinishKind,
  type WireMessage,
  type WirePart,
  type WireResponse,
  type WireToolCall,
  type WireToolDef,
} from "../wire/index.js";

/** The `data_schema` of every `llm` event an adapter records in the Chat Completions shape. */
export const CHAT_COMPLETIONS_SCHEMA = openaiChatCodec.schema;

/**
 * What every adapter knows about one model call, in one library-neutral shape, encoded as OpenAI
 * Chat Completions JSON by the wire codec: the request and response bodies every projection and
 * ATIF read (messages, tools, choices with tool_calls, usage with cached tokens, model).
 */

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

function wireCall(c: CallToolCall): WireToolCall {
  const text = argumentsText(c.arguments);
  let input: Json = text;
  try {
    input = JSON.parse(text) as Json;
  } catch {
    // arguments that are not JSON stay text, as the model sent them
  }
  return { id: c.id, name: c.name, arguments: text, input };
}

function wireMessage(m: CallMessage): WireMessage {
  if (m.role === "tool") {
    return {
      role: "tool",
      parts: [{ type: "tool_result", toolCallId: m.toolCallId ?? "", output: m.text, text: m.text }],
      text: "",
      content: m.text,
    };
  }
  const parts: WirePart[] = m.text === "" ? [] : [{ type: "text", text: m.text }];
  for (const call of m.toolCalls ?? []) parts.push({ type: "tool_call", call: wireCall(call) });
  return { role: m.role, parts, text: m.text, content: m.text };
}

function wireTool(t: CallToolDefinition): WireToolDef {
  const schema = toJsonSafe(t.parameters ?? null);
  return {
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: isJsonObject(schema) ? schema : { type: "object", properties: {} },
    raw: null,
  };
}

const FINISH_KINDS: ReadonlySet<string> = new Set(["stop", "length", "tool_calls", "content_filter"]);

/** The request as a Chat Completions body, encoded by the wire codec. */
export function chatCompletionsRequest(request: CallRequest): JsonObject {
  const body = openaiChatCodec.encodeRequest({
    model: request.model ?? "",
    messages: openaiChatCodec.encodeMessages(request.messages.map(wireMessage)),
    tools: (request.tools ?? []).map(wireTool),
    ...(request.stream ? { stream: true } : {}),
  });
  if (request.model === undefined) delete body.model;
  for (const [key, value] of Object.entries(request.settings ?? {})) if (value !== null && value !== undefined) body[key] = value;
  return body;
}

/** The response as a Chat Completions body (one choice), encoded by the wire codec. */
export function chatCompletionsResponse(response: CallResponse): JsonObject {
  const toolCalls = response.toolCalls.map(wireCall);
  const parts: WirePart[] = response.text === "" ? [] : [{ type: "text", text: response.text }];
  for (const call of toolCalls) parts.push({ type: "tool_call", call });
  const reply: WireResponse = { parts, text: response.text, toolCalls };
  if (response.id !== undefined) reply.id = response.id;
  if (response.model !== undefined) reply.model = response.model;
  if (response.finishReason !== undefined) {
    if (FINISH_KINDS.has(response.finishReason)) reply.finish = response.finishReason as FinishKind;
    else reply.rawFinishReason = response.finishReason;
  }
  const usage = response.usage;
  if (usage) {
    reply.usage = {
      ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
      ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
      ...(usage.cachedTokens !== undefined ? { cacheReadTokens: usage.cachedTokens } : {}),
    };
  }
  const body = openaiChatCodec.encodeResponse(reply);
  // No usage reported is not zero tokens used.
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) delete body.usage;
  if (response.id === undefined) delete body.id;
  if (response.model === undefined) delete body.model;
  return body;
}

/** Text of a value a tool returned, as a `tool` message carries it. */
export function toolOutputText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(toJsonSafe(value));
}
