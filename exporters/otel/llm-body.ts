import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { jsonText } from "./flatten.js";

/** Provider request and response bodies inside LLM events, read in one provider-neutral shape. */
export type LlmProvider = "openai" | "anthropic";

export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
  /** The arguments as a value (parsed when the provider sent text). */
  input: Json;
}

export interface LlmMessage {
  role: string;
  text: string;
  toolCallId?: string;
  toolCalls: LlmToolCall[];
  /** Set on `tool` messages: the tool's output as sent. */
  toolResponse?: Json;
}

export interface LlmUsage {
  prompt?: number;
  completion?: number;
  total?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface LlmResponse {
  id?: string;
  model?: string;
  text: string;
  toolCalls: LlmToolCall[];
  finishReason?: string;
  usage: LlmUsage;
}

/** The provider named by an LLM event (`openai.chat_completions`, `anthropic.messages`). */
export function providerFromEventName(name: string): LlmProvider | undefined {
  const lower = name.toLowerCase();
  if (lower.includes("anthropic") || lower.includes("claude")) return "anthropic";
  if (lower.includes("openai") || lower.includes("gpt")) return "openai";
  return undefined;
}

/** The provider request body: `data.content` for the agent loop's `{headers, content}`, else `data`. */
export function requestBodyOf(data: Json): JsonObject | undefined {
  if (!isJsonObject(data)) return undefined;
  const content = data["content"];
  if (isJsonObject(content)) return content;
  return Array.isArray(data["messages"]) ? data : undefined;
}

function str(value: Json | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Text of a content value: a string, or the text/refusal parts of a parts array joined by newlines. */
export function contentText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (isJsonObject(part)) {
      const text = str(part["text"]) ?? (part["type"] === "refusal" ? str(part["refusal"]) : undefined);
      if (text !== undefined && (part["type"] === undefined || part["type"] === "text" || part["type"] === "refusal")) parts.push(text);
    }
  }
  return parts.join("\n");
}

function parseArgs(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function toolCallsOf(message: JsonObject): LlmToolCall[] {
  const calls: LlmToolCall[] = [];
  const openai = message["tool_calls"];
  if (Array.isArray(openai)) {
    for (const call of openai) {
      if (!isJsonObject(call)) continue;
      const fn = isJsonObject(call["function"]) ? call["function"] : {};
      const args = str(fn["arguments"]) ?? jsonText(fn["arguments"] ?? {});
      calls.push({ id: str(call["id"]) ?? "", name: str(fn["name"]) ?? "", arguments: args, input: parseArgs(args) });
    }
  }
  const content = message["content"];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!isJsonObject(block) || block["type"] !== "tool_use") continue;
      const input = block["input"] ?? {};
      calls.push({ id: str(block["id"]) ?? "", name: str(block["name"]) ?? "", arguments: jsonText(input), input });
    }
  }
  return calls;
}

/** Request messages in order; an Anthropic `system` comes first with role `system`. */
export function requestMessages(body: JsonObject): LlmMessage[] {
  const out: LlmMessage[] = [];
  const system = body["system"];
  if (system !== undefined && system !== null) {
    const text = contentText(system);
    if (text !== "") out.push({ role: "system", text, toolCalls: [] });
  }
  const messages = body["messages"];
  if (!Array.isArray(messages)) return out;
  for (const message of messages) {
    if (!isJsonObject(message)) continue;
    const role = str(message["role"]) ?? "user";
    const content = message["content"];
    if (role === "tool") {
      out.push({ role, text: contentText(content), toolCallId: str(message["tool_call_id"]), toolCalls: [], toolResponse: content ?? null });
      continue;
    }
    const blocks = Array.isArray(content) ? content : [];
    const results = blocks.filter((b) => isJsonObject(b) && b["type"] === "tool_result") as JsonObject[];
    if (role === "user" && blocks.length > 0 && results.length === blocks.length) {
      for (const block of results) {
        const inner = block["content"];
        out.push({ role: "tool", text: contentText(inner), toolCallId: str(block["tool_use_id"]), toolCalls: [], toolResponse: inner ?? null });
      }
      continue;
    }
    out.push({ role, text: contentText(content), toolCalls: toolCallsOf(message) });
  }
  return out;
}

/** A raw provider response (OpenAI chat completion or Anthropic message), or undefined. */
export function responseOf(data: Json): LlmResponse | undefined {
  if (!isJsonObject(data)) return undefined;
  const usage = isJsonObject(data["usage"]) ? data["usage"] : {};
  const choices = data["choices"];
  if (Array.isArray(choices)) {
    const first = isJsonObject(choices[0]) ? choices[0] : {};
    const message = isJsonObject(first["message"]) ? first["message"] : {};
    const details = isJsonObject(usage["prompt_tokens_details"]) ? usage["prompt_tokens_details"] : {};
    const prompt = num(usage["prompt_tokens"]);
    const completion = num(usage["completion_tokens"]);
    return {
      id: str(data["id"]),
      model: str(data["model"]),
      text: contentText(message["content"]),
      toolCalls: toolCallsOf(message),
      finishReason: str(first["finish_reason"]),
      usage: {
        prompt,
        completion,
        total: num(usage["total_tokens"]) ?? (prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : undefined),
        cacheRead: num(details["cached_tokens"]),
      },
    };
  }
  if (Array.isArray(data["content"]) || data["stop_reason"] !== undefined) {
    const input = num(usage["input_tokens"]);
    const cacheRead = num(usage["cache_read_input_tokens"]);
    const cacheWrite = num(usage["cache_creation_input_tokens"]);
    const completion = num(usage["output_tokens"]);
    const prompt = input === undefined && cacheRead === undefined && cacheWrite === undefined
      ? undefined
      : (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
    return {
      id: str(data["id"]),
      model: str(data["model"]),
      text: contentText((data["content"] as Json[] | undefined)?.filter((b) => isJsonObject(b) && b["type"] === "text") ?? []),
      toolCalls: toolCallsOf(data),
      finishReason: str(data["stop_reason"]),
      usage: {
        prompt,
        completion,
        total: prompt !== undefined || completion !== undefined ? (prompt ?? 0) + (completion ?? 0) : undefined,
        cacheRead,
        cacheWrite,
      },
    };
  }
  return undefined;
}

export type FinishKind = "stop" | "length" | "tool" | "filter";

/** Both providers' finish reasons on one scale; undefined for values we do not know. */
export function finishKindOf(raw: string): FinishKind | undefined {
  switch (raw) {
    case "stop":
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "length":
    case "max_tokens":
      return "length";
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "tool";
    case "content_filter":
    case "refusal":
      return "filter";
    default:
      return undefined;
  }
}
