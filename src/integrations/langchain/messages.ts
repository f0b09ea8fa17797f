import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { Json } from "../../events/json.js";
import type { CallMessage, CallRequest, CallResponse, CallToolCall, CallToolDefinition } from "../chat-completions-body.js";
import { toolOutputText } from "../chat-completions-body.js";

/** LangChain's messages and results read into the library-neutral call record. */

const ROLES: Record<string, CallMessage["role"]> = {
  system: "system",
  developer: "system",
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  tool: "tool",
  function: "tool",
};

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : toolOutputText(content);
  return content
    .map((part: unknown) =>
      typeof part === "string"
        ? part
        : part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
    )
    .join("");
}

interface LangChainToolCall {
  id?: string;
  name: string;
  args: unknown;
}

function toolCallsOf(message: unknown): CallToolCall[] {
  const calls = (message as { tool_calls?: LangChainToolCall[] } | undefined)?.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.map((c) => ({ id: c.id ?? "", name: c.name, arguments: (c.args ?? {}) as Json }));
}

export function messageOf(message: BaseMessage): CallMessage {
  const role = ROLES[message.getType()] ?? "user";
  const text = contentText(message.content);
  if (role === "tool") return { role, text, toolCallId: String((message as { tool_call_id?: unknown }).tool_call_id ?? "") };
  if (role === "assistant") return { role, text, toolCalls: toolCallsOf(message) };
  return { role, text };
}

/** Tool definitions in the OpenAI shape LangChain's OpenAI models put in their invocation params. */
function toolsOf(params: Record<string, unknown>): CallToolDefinition[] {
  const tools = params["tools"];
  if (!Array.isArray(tools)) return [];
  const out: CallToolDefinition[] = [];
  type Definition = { name?: string; description?: string; parameters?: unknown };
  for (const t of tools as (Definition & { function?: Definition })[]) {
    const fn: Definition = t.function ?? t;
    if (typeof fn.name !== "string") continue;
    out.push({
      name: fn.name,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      ...("parameters" in fn ? { parameters: fn.parameters as Json } : {}),
    });
  }
  return out;
}

const SETTINGS = [
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "tool_choice",
];

export function requestOf(messages: CallMessage[], params: Record<string, unknown>, model: string | undefined): CallRequest {
  const settings: Record<string, Json> = {};
  for (const key of SETTINGS) if (params[key] !== undefined && params[key] !== null) settings[key] = params[key] as Json;
  return {
    ...(model !== undefined ? { model } : {}),
    messages,
    tools: toolsOf(params),
    settings,
    ...(params["stream"] === true ? { stream: true } : {}),
  };
}

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { cache_read?: number };
}

/** The first generation of a result: its text, tool calls, usage, finish reason and model. */
export function responseOf(output: LLMResult, fallbackModel: string | undefined): CallResponse {
  const generation = output.generations[0]?.[0] as
    { text?: string; message?: unknown; generationInfo?: Record<string, unknown> } | undefined;
  const message = generation?.message as
    { content?: unknown; usage_metadata?: Usage; response_metadata?: Record<string, unknown>; id?: string } | undefined;
  const response: CallResponse = {
    text: message ? contentText(message.content) : (generation?.text ?? ""),
    toolCalls: toolCallsOf(message),
  };
  const meta = message?.response_metadata ?? {};
  const model = (meta["model_name"] ?? meta["model"] ?? fallbackModel) as string | undefined;
  if (model !== undefined) response.model = model;
  const finish = meta["finish_reason"] ?? generation?.generationInfo?.["finish_reason"];
  if (typeof finish === "string") response.finishReason = finish;
  const usage = message?.usage_metadata;
  const legacy = (output.llmOutput?.["tokenUsage"] ?? {}) as { promptTokens?: number; completionTokens?: number };
  const input = usage?.input_tokens ?? legacy.promptTokens;
  const outputTokens = usage?.output_tokens ?? legacy.completionTokens;
  if (input !== undefined || outputTokens !== undefined) {
    response.usage = {
      ...(input !== undefined ? { inputTokens: input } : {}),
      ...(outputTokens !== undefined ? { outputTokens } : {}),
      ...(usage?.input_token_details?.cache_read !== undefined ? { cachedTokens: usage.input_token_details.cache_read } : {}),
    };
  }
  return response;
}
