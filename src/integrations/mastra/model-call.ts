import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import type { AnyExportedSpan } from "@mastra/core/observability";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { LlmHandle } from "../../runtime/types.js";
import { baseMetadata, dateOf, stringOf } from "./span-fields.js";
import {
  CHAT_COMPLETIONS_SCHEMA,
  chatCompletionsRequest,
  chatCompletionsResponse,
  toolOutputText,
  type CallMessage,
  type CallResponse,
  type CallToolCall,
  type CallToolDefinition,
  type CallUsage,
} from "../chat-completions-body.js";

/**
 * Mastra's model spans read into the library-neutral call record. A `model_generation` span's
 * input holds the messages the loop sent first (AI SDK model messages, system first) and its
 * attributes the tool definitions; each `model_inference` span is one provider call whose output
 * holds the text and tool calls and whose attributes hold the usage, finish reason and model.
 */

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Loose) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A tool result part's text: AI SDK 5+ `output: {type, value}`, or an older `result`. */
function resultText(part: Loose): string {
  const output = asObject(part["output"]);
  if (output) {
    const value = output["value"];
    switch (output["type"]) {
      case "text":
      case "error-text":
        return typeof value === "string" ? value : toolOutputText(value);
      case "json":
      case "error-json":
        return toolOutputText(value);
      case "execution-denied":
        return str(output["reason"]) ?? "execution denied";
      case "content":
        return Array.isArray(value)
          ? value
              .map((p) => (asObject(p)?.["type"] === "text" ? String(asObject(p)?.["text"] ?? "") : `[${String(asObject(p)?.["type"])}]`))
              .join("\n")
          : toolOutputText(value);
    }
    return toolOutputText(output);
  }
  return toolOutputText(part["result"] ?? part["output"] ?? null);
}

function toolCallOf(part: Loose): CallToolCall {
  return {
    id: str(part["toolCallId"]) ?? "",
    name: str(part["toolName"]) ?? "",
    arguments: toJsonSafe(part["input"] ?? part["args"] ?? {}),
  };
}

function partText(part: unknown): string | undefined {
  if (typeof part === "string") return part;
  const p = asObject(part);
  if (!p) return undefined;
  switch (p["type"]) {
    case "text":
      return str(p["text"]) ?? "";
    case "image":
      return "[image]";
    case "file":
      return `[file ${str(p["mediaType"]) ?? str(p["mimeType"]) ?? ""}]`.replace(" ]", "]");
    default:
      return undefined;
  }
}

/** One model message (AI SDK `ModelMessage`) as call messages: tool results become `tool` messages. */
function messagesOf(message: unknown): CallMessage[] {
  if (typeof message === "string") return [{ role: "user", text: message }];
  const m = asObject(message);
  if (!m) return [];
  const role = m["role"];
  const content = m["content"];
  if (role !== "system" && role !== "user" && role !== "assistant" && role !== "tool") return [];
  if (typeof content === "string") return [role === "tool" ? { role, text: content, toolCallId: "" } : { role, text: content }];
  const parts: unknown[] = Array.isArray(content)
    ? content
    : asObject(content) && Array.isArray(asObject(content)!["parts"])
      ? (asObject(content)!["parts"] as unknown[])
      : [];
  const text: string[] = [];
  const calls: CallToolCall[] = [];
  const results: CallMessage[] = [];
  for (const part of parts) {
    const p = asObject(part);
    if (p?.["type"] === "tool-call") calls.push(toolCallOf(p));
    else if (p?.["type"] === "tool-result") results.push({ role: "tool", toolCallId: str(p["toolCallId"]) ?? "", text: resultText(p) });
    else {
      const t = partText(part);
      if (t !== undefined) text.push(t);
    }
  }
  const out: CallMessage[] = [];
  if (role === "tool") return results;
  if (role === "assistant") out.push({ role, text: text.join(""), ...(calls.length > 0 ? { toolCalls: calls } : {}) });
  else out.push({ role, text: text.join("\n") });
  // Results of provider-executed tools sit in the assistant message; they answer calls too.
  out.push(...results);
  return out;
}

/** The messages of a `model_generation` span's input (`{messages}`, a message list, or a prompt string). */
export function generationMessages(input: unknown): CallMessage[] {
  const list = asObject(input)?.["messages"] ?? input;
  if (typeof list === "string") return [{ role: "user", text: list }];
  if (!Array.isArray(list)) return list === undefined || list === null ? [] : messagesOf(list);
  return list.flatMap(messagesOf);
}

/** The tool definitions a `model_generation` span lists. */
export function generationTools(attributes: unknown): CallToolDefinition[] {
  const tools = asObject(attributes)?.["tools"];
  if (!Array.isArray(tools)) return [];
  const out: CallToolDefinition[] = [];
  for (const tool of tools) {
    const t = asObject(tool);
    const name = str(t?.["name"]);
    if (!t || name === undefined) continue;
    const description = str(t["description"]);
    out.push({ name, ...(description !== undefined ? { description } : {}), parameters: toJsonSafe(t["parameters"] ?? null) });
  }
  return out;
}

const SETTING_NAMES: Record<string, string> = {
  temperature: "temperature",
  maxOutputTokens: "max_tokens",
  topP: "top_p",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  stopSequences: "stop",
  seed: "seed",
};

/** Sampling parameters of a model span, in Chat Completions names. */
export function generationSettings(attributes: unknown): JsonObject {
  const parameters = asObject(asObject(attributes)?.["parameters"]);
  const out: JsonObject = {};
  for (const [key, name] of Object.entries(SETTING_NAMES)) {
    const value = parameters?.[key];
    if (value !== undefined && value !== null) out[name] = toJsonSafe(value);
  }
  return out;
}

const FINISH: Record<string, string> = { "tool-calls": "tool_calls", "content-filter": "content_filter", stop: "stop", length: "length" };

/** Usage as Mastra counts it (`inputTokens` includes cache reads), as the call record counts it. */
export function usageOf(attributes: unknown): CallUsage | undefined {
  const usage = asObject(asObject(attributes)?.["usage"]);
  if (!usage) return undefined;
  const inputTokens = num(usage["inputTokens"]);
  const outputTokens = num(usage["outputTokens"]);
  const cachedTokens = num(asObject(usage["inputDetails"])?.["cacheRead"]);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(cachedTokens ? { cachedTokens } : {}),
  };
}

/** The assistant's reply of a `model_inference` (or `model_step`) span. */
export function inferenceResponse(output: unknown, attributes: unknown): CallResponse {
  const o = asObject(output);
  const attrs = asObject(attributes);
  const calls = Array.isArray(o?.["toolCalls"]) ? (o!["toolCalls"] as unknown[]) : [];
  const toolCalls = calls.flatMap((c) => {
    const call = asObject(c);
    if (!call) return [];
    const payload = asObject(call["payload"]) ?? call; // a stream chunk keeps the call in `payload`
    return [toolCallOf(payload)];
  });
  const model = str(attrs?.["responseModel"]) ?? str(attrs?.["model"]);
  const id = str(attrs?.["responseId"]);
  const finish = str(attrs?.["finishReason"]);
  const usage = usageOf(attributes);
  return {
    text: str(o?.["text"]) ?? (typeof output === "string" ? output : ""),
    toolCalls,
    ...(model !== undefined ? { model } : {}),
    ...(id !== undefined ? { id } : {}),
    ...(finish !== undefined ? { finishReason: FINISH[finish] ?? finish } : {}),
    ...(usage ? { usage } : {}),
  };
}

/** A span's input or output as event data. */
export function jsonOf(value: unknown): Json {
  return value === undefined ? null : toJsonSafe(value);
}

/** Whether a value is a non-empty JSON object. */
export function hasKeys(value: Json): value is JsonObject {
  return isJsonObject(value) && Object.keys(value).length > 0;
}

/** What one model generation (an agent's loop) has sent so far: each provider call's request grows from it. */
export interface Generation {
  history: CallMessage[];
  /** Tool results not yet placed after the assistant message that asked for them. */
  pendingResults: CallMessage[];
  tools: CallToolDefinition[];
  settings: JsonObject;
  model?: string;
}

/**
 * Starts the `llm` scope of one provider call: its request is what the generation has sent so
 * far, with the tool results since the last reply (unless they are this step's own: a step that
 * stands for its call is recorded at its end, after its tools).
 */
export function startModelCall(
  runtime: Runtime,
  span: AnyExportedSpan,
  generation: Generation | undefined,
  parentUuid: string,
  withPending = true,
): LlmHandle {
  if (generation && withPending) generation.history.push(...generation.pendingResults.splice(0));
  const model = stringOf(span.attributes, "model") ?? generation?.model;
  const provider = stringOf(span.attributes, "provider");
  const settings = { ...generation?.settings, ...generationSettings(span.attributes) };
  const streaming = (span.attributes as { streaming?: unknown } | undefined)?.streaming === true;
  const request = chatCompletionsRequest({
    ...(model !== undefined ? { model } : {}),
    messages: generation ? [...generation.history] : [],
    tools: generation?.tools ?? [],
    settings,
    ...(streaming ? { stream: true } : {}),
  });
  return runtime.startLlm(
    `${provider ?? "mastra"}.chat`,
    { content: request },
    {
      parent: { uuid: parentUuid },
      dataSchema: CHAT_COMPLETIONS_SCHEMA,
      metadata: baseMetadata(span),
      ...(dateOf(span.startTime) ? { timestamp: dateOf(span.startTime)! } : {}),
      ...(model !== undefined ? { modelName: model } : {}),
      ...(streaming ? { attributes: ["streaming"] } : {}),
    },
  );
}

/**
 * Ends a provider call's `llm` scope with its reply; the reply, then the results of the tools it
 * asked for, join the conversation. The reply was complete when the first of those tools started.
 */
export function endModelCall(
  runtime: Runtime,
  handle: LlmHandle,
  span: AnyExportedSpan,
  generation: Generation | undefined,
  firstToolStart: Date | undefined,
  timestamp: Date,
  error: Error | undefined,
): void {
  const first = firstToolStart;
  const at = first && first < timestamp && first.getTime() * 1000 > handle.startedAtUs ? first : timestamp;
  const response = inferenceResponse(span.output, span.attributes);
  const model = response.model ?? handle.modelName;
  if (error) runtime.endLlm(handle, null, { error, timestamp: at });
  else {
    runtime.endLlm(handle, chatCompletionsResponse({ ...response, ...(model !== undefined ? { model } : {}) }), {
      timestamp: at,
      ...(model !== undefined ? { modelName: model } : {}),
    });
  }
  if (generation && !error) {
    generation.history.push({
      role: "assistant",
      text: response.text,
      ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}),
    });
    generation.history.push(...generation.pendingResults.splice(0));
  }
}
