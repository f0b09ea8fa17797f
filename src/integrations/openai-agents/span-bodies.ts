import type { GenerationSpanData, ResponseSpanData } from "@openai/agents-core";
import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { CallToolCall } from "../chat-completions-body.js";

/**
 * The bodies of the model spans of `@openai/agents-core`. A generation span (the Chat Completions
 * model) already holds Chat Completions messages and the raw completion; a response span (the
 * Responses model) holds the Responses input and response object, recorded as they are.
 */

export function generationRequest(data: GenerationSpanData): JsonObject {
  const body: JsonObject = {};
  if (data.model !== undefined) body.model = data.model;
  body.messages = toJsonSafe(data.input ?? []);
  for (const [key, value] of Object.entries(data.model_config ?? {})) {
    if (value !== undefined && value !== null && key !== "base_url") body[key] = toJsonSafe(value);
  }
  return body;
}

/** The raw completion the span kept or, without it, the usage the span reports. */
export function generationResponse(data: GenerationSpanData): Json {
  const raw = data.output?.[0];
  if (raw !== undefined && isJsonObject(toJsonSafe(raw)) && Array.isArray((raw as { choices?: unknown }).choices)) return toJsonSafe(raw);
  const usage = data.usage ?? {};
  return {
    object: "chat.completion",
    ...(data.model !== undefined ? { model: data.model } : {}),
    choices: [],
    usage: { prompt_tokens: usage.input_tokens ?? 0, completion_tokens: usage.output_tokens ?? 0, total_tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) },
  };
}

export function responseRequest(data: ResponseSpanData): JsonObject {
  return { input: toJsonSafe(data._input ?? null) };
}

export function responseResponse(data: ResponseSpanData): Json {
  return toJsonSafe(data._response ?? (data.response_id !== undefined ? { id: data.response_id } : null));
}

/** The tool calls a model span's response asked for (to give function spans their call ids). */
export function requestedToolCalls(response: Json): CallToolCall[] {
  if (!isJsonObject(response)) return [];
  const out: CallToolCall[] = [];
  const choices = response["choices"];
  if (Array.isArray(choices)) {
    for (const choice of choices) {
      const message = isJsonObject(choice) ? choice["message"] : undefined;
      const calls = isJsonObject(message) ? message["tool_calls"] : undefined;
      if (!Array.isArray(calls)) continue;
      for (const call of calls) {
        if (!isJsonObject(call) || !isJsonObject(call["function"])) continue;
        const fn = call["function"];
        out.push({ id: String(call["id"] ?? ""), name: String(fn["name"] ?? ""), arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : JSON.stringify(fn["arguments"] ?? {}) });
      }
    }
  }
  const items = response["output"];
  if (Array.isArray(items)) {
    for (const item of items) {
      if (isJsonObject(item) && item["type"] === "function_call") {
        out.push({ id: String(item["call_id"] ?? ""), name: String(item["name"] ?? ""), arguments: String(item["arguments"] ?? "") });
      }
    }
  }
  return out;
}
