import { PROFILE_MODEL_NAME } from "../../src/events/wire-names.js";
import type { Attributes } from "@opentelemetry/api";
import { MimeType, SemanticConventions as SC } from "./openinference-conventions.js";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { jsonText } from "./flatten.js";
import { responseModelOf } from "./full.js";
import { recordedCost } from "../../src/wire/index.js";
import type { WireToolCall } from "../../src/wire/index.js";
import { finishReasonIn, llmRequestOf, llmResponseOf, requestMessages, type LlmMessage } from "./llm-body.js";
import { profileString } from "./scope-attributes.js";
import { inputMessageKeys, outputMessageKeys, toolSchemaKey, type MessageKeys } from "./openinference-message-keys.js";

const OI_FINISH = { stop: "complete", length: "length", tool_calls: "tool_use", content_filter: "content_filter" } as const;

/** `llm.provider` by the event name when no codec claims the body (a foreign producer's own names). */
function providerFromEventName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.includes("anthropic") || lower.includes("claude")) return "anthropic";
  if (lower.includes("openai") || lower.includes("gpt")) return "openai";
  if (lower.includes("gemini")) return "google";
  return undefined;
}

/** OpenInference LLM start attributes from the provider request body. */
export function writeLlmStart(attrs: Attributes, start: ScopeEvent): void {
  const decoded = llmRequestOf(start);
  const provider = decoded?.codec.provider ?? providerFromEventName(start.name);
  if (provider) {
    attrs[SC.LLM_PROVIDER] = provider;
    attrs[SC.LLM_SYSTEM] = provider;
  }
  const model = profileString(start, PROFILE_MODEL_NAME) ?? decoded?.request.model;
  if (model) attrs[SC.LLM_MODEL_NAME] = model;
  if (!decoded) {
    if (start.data !== null && start.data !== undefined) setJsonInput(attrs, start.data);
    return;
  }
  const { request } = decoded;
  const messages = requestMessages(request);
  // The turns' lines joined by blank lines, built by concatenation: a late turn's text is
  // hundreds of KB, which one join would copy into a new string on every call; these pieces are
  // copied once, if and when the span is encoded.
  let input = "";
  let hasTurnText = false; // a turn other than a tool result with text or tool calls
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const keys = inputMessageKeys(i);
    attrs[keys.role] = message.role;
    if (message.text !== "") attrs[keys.content] = message.text; // an absent content writes nothing
    if (message.toolCallId !== undefined) attrs[keys.toolCallId] = message.toolCallId;
    writeToolCalls(attrs, keys, message.toolCalls);
    if (message.role === "tool") input += (input === "" ? "" : "\n\n") + "tool: Tool result omitted";
    else if (message.text !== "" || message.toolCalls.length > 0) {
      hasTurnText = true;
      input += (input === "" ? "" : "\n\n") + message.role + ": " + turnText(message);
    }
  }
  if (hasTurnText) {
    attrs[SC.INPUT_VALUE] = input;
    attrs[SC.INPUT_MIME_TYPE] = MimeType.TEXT;
  } else {
    setJsonInput(attrs, start.data);
  }
  attrs[SC.LLM_INVOCATION_PARAMETERS] = jsonText(request.parameters);
  request.tools.forEach((tool, i) => {
    attrs[toolSchemaKey(i)] = jsonText(tool.raw);
  });
}

function setJsonInput(attrs: Attributes, data: Json): void {
  const copy = isJsonObject(data) ? { ...data } : data;
  if (isJsonObject(copy)) delete copy["headers"];
  attrs[SC.INPUT_VALUE] = jsonText(copy);
  attrs[SC.INPUT_MIME_TYPE] = MimeType.JSON;
}

/** OpenInference LLM end attributes from the raw provider response. */
export function writeLlmEnd(attrs: Attributes, end: ScopeEvent): void {
  const response = llmResponseOf(end);
  const model = response?.model ?? responseModelOf(end.data) ?? profileString(end, PROFILE_MODEL_NAME);
  if (model) attrs[SC.LLM_MODEL_NAME] = model;
  if (!response) return;
  const usage = response.usage ?? {};
  if (usage.inputTokens !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT] = usage.inputTokens;
  if (usage.outputTokens !== undefined) attrs[SC.LLM_TOKEN_COUNT_COMPLETION] = usage.outputTokens;
  if (usage.totalTokens !== undefined) attrs[SC.LLM_TOKEN_COUNT_TOTAL] = usage.totalTokens;
  if (usage.cacheReadTokens !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE] = usage.cacheWriteTokens;
  const cost = recordedCost(end.category_profile);
  if (cost !== undefined && cost.currency === "USD") {
    attrs[SC.LLM_COST_TOTAL] = cost.total;
    if (cost.input !== undefined) attrs[SC.LLM_COST_PROMPT] = cost.input;
    if (cost.output !== undefined) attrs[SC.LLM_COST_COMPLETION] = cost.output;
    if (cost.cacheRead !== undefined) attrs[SC.LLM_COST_PROMPT_DETAILS_CACHE_READ] = cost.cacheRead;
    if (cost.cacheWrite !== undefined) attrs[SC.LLM_COST_PROMPT_DETAILS_CACHE_WRITE] = cost.cacheWrite;
  }
  const finish = finishReasonIn(response, OI_FINISH);
  if (finish !== undefined) attrs[SC.LLM_FINISH_REASON] = finish;
  const keys = outputMessageKeys(0);
  attrs[keys.role] = "assistant";
  if (response.text !== "") attrs[keys.content] = response.text;
  writeToolCalls(attrs, keys, response.toolCalls);
}

/** `<prefix>message.tool_calls.{j}.tool_call.*` of an assistant turn (OpenInference's tool-call keys). */
function writeToolCalls(attrs: Attributes, message: MessageKeys, calls: readonly WireToolCall[]): void {
  for (let j = 0; j < calls.length; j++) {
    const call = calls[j]!;
    const keys = message.toolCall(j);
    attrs[keys.id] = call.id;
    attrs[keys.functionName] = call.name;
    attrs[keys.argumentsJson] = call.arguments;
  }
}

/** A turn's line in `input.value`: its text, and the tools an assistant turn requested. */
function turnText(message: LlmMessage): string {
  if (message.toolCalls.length === 0) return message.text;
  const requested = `Requested tools: ${message.toolCalls.map((c) => c.name).join(", ")}`;
  return message.text === "" ? requested : `${message.text}\n${requested}`;
}
