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
    usage: {
      prompt_tokens: usage.input_tokens ?? 0,
      completion_tokens: usage.output_tokens ?? 0,
      total_tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
    },
  };
}

/**
 * The span keeps the SDK's own input items (`callId`, `function_call_result`, `providerData`):
 * written as the Responses wire input (`call_id`, `function_call_output`), which the event's
 * `openai/responses` schema promises and the decoders read. The span does not keep the request's
 * `instructions` (the agent's system prompt); the response echoes them, so they come from there.
 */
export function responseRequest(data: ResponseSpanData): JsonObject {
  const input = toJsonSafe(data._input ?? null);
  const instructions = toJsonSafe(data._response?.["instructions"] ?? null);
  return {
    ...(typeof instructions === "string" || Array.isArray(instructions) ? { instructions } : {}),
    input: Array.isArray(input) ? input.map(wireInputItem) : input,
  };
}

export function responseResponse(data: ResponseSpanData): Json {
  return toJsonSafe(data._response ?? (data.response_id !== undefined ? { id: data.response_id } : null));
}

/** The model a Responses response names, if any. */
export function responseModel(response: Json): string | undefined {
  return isJsonObject(response) && typeof response["model"] === "string" ? response["model"] : undefined;
}

function wireInputItem(item: Json): Json {
  if (!isJsonObject(item)) return item;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === "providerData") continue;
    out[key === "callId" ? "call_id" : key] = value;
  }
  if (out["type"] === "function_call_result") {
    out["type"] = "function_call_output";
    out["output"] = wireToolOutput(out["output"] ?? "");
  }
  return out;
}

/** A tool result as the Responses wire carries it: text, or a list of input parts. */
function wireToolOutput(output: Json): Json {
  if (typeof output === "string") return output;
  if (isJsonObject(output) && output["type"] === "text" && typeof output["text"] === "string") return output["text"];
  if (Array.isArray(output)) {
    return output.map((part) =>
      isJsonObject(part) && part["type"] === "text" && typeof part["text"] === "string" ? { type: "input_text", text: part["text"] } : part,
    );
  }
  return JSON.stringify(output);
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
        out.push({
          id: String(call["id"] ?? ""),
          name: String(fn["name"] ?? ""),
          arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : JSON.stringify(fn["arguments"] ?? {}),
        });
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
