import { PROFILE_MODEL_NAME } from "../../src/events/wire-names.js";
import type { Attributes } from "@opentelemetry/api";
import { MimeType, SemanticConventions as SC } from "@arizeai/openinference-semantic-conventions";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { jsonText } from "./flatten.js";
import { responseModelOf } from "./full.js";
import { finishKindOf, providerFromEventName, requestBodyOf, requestMessages, responseOf } from "./llm-body.js";
import { profileString } from "./scope-attributes.js";

const OI_FINISH = { stop: "complete", length: "length", tool: "tool_use", filter: "content_filter" } as const;
const NOT_PARAMETERS = new Set(["messages", "tools", "system"]);

/** OpenInference LLM start attributes from the provider request body. */
export function writeLlmStart(attrs: Attributes, start: ScopeEvent): void {
  const provider = providerFromEventName(start.name);
  if (provider) {
    attrs[SC.LLM_PROVIDER] = provider;
    attrs[SC.LLM_SYSTEM] = provider;
  }
  const body = requestBodyOf(start.data);
  const model = profileString(start, PROFILE_MODEL_NAME) ?? (typeof body?.["model"] === "string" ? body["model"] : undefined);
  if (model) attrs[SC.LLM_MODEL_NAME] = model;
  if (!body) {
    if (start.data !== null && start.data !== undefined) setJsonInput(attrs, start.data);
    return;
  }
  const messages = requestMessages(body);
  const lines: string[] = [];
  messages.forEach((message, i) => {
    const prefix = `${SC.LLM_INPUT_MESSAGES}.${i}.`;
    attrs[prefix + SC.MESSAGE_ROLE] = message.role;
    attrs[prefix + SC.MESSAGE_CONTENT] = message.text;
    if (message.toolCallId !== undefined) attrs[prefix + SC.MESSAGE_TOOL_CALL_ID] = message.toolCallId;
    if (message.role === "tool") lines.push("tool: Tool result omitted");
    else if (message.text !== "") lines.push(`${message.role}: ${message.text}`);
  });
  if (messages.some((m) => m.role !== "tool" && m.text !== "")) {
    attrs[SC.INPUT_VALUE] = lines.join("\n\n");
    attrs[SC.INPUT_MIME_TYPE] = MimeType.TEXT;
  } else {
    setJsonInput(attrs, start.data);
  }
  const parameters: Record<string, Json> = {};
  for (const key of Object.keys(body)) if (!NOT_PARAMETERS.has(key)) parameters[key] = body[key]!;
  attrs[SC.LLM_INVOCATION_PARAMETERS] = jsonText(parameters);
  const tools = body["tools"];
  if (Array.isArray(tools)) {
    tools.forEach((tool, i) => {
      attrs[`${SC.LLM_TOOLS}.${i}.${SC.TOOL_JSON_SCHEMA}`] = jsonText(tool);
    });
  }
}

function setJsonInput(attrs: Attributes, data: Json): void {
  const copy = isJsonObject(data) ? { ...data } : data;
  if (isJsonObject(copy)) delete copy["headers"];
  attrs[SC.INPUT_VALUE] = jsonText(copy);
  attrs[SC.INPUT_MIME_TYPE] = MimeType.JSON;
}

/** OpenInference LLM end attributes from the raw provider response. */
export function writeLlmEnd(attrs: Attributes, end: ScopeEvent): void {
  const model = responseModelOf(end.data) ?? profileString(end, PROFILE_MODEL_NAME);
  if (model) attrs[SC.LLM_MODEL_NAME] = model;
  const response = responseOf(end.data);
  if (!response) return;
  const { usage } = response;
  if (usage.prompt !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT] = usage.prompt;
  if (usage.completion !== undefined) attrs[SC.LLM_TOKEN_COUNT_COMPLETION] = usage.completion;
  if (usage.total !== undefined) attrs[SC.LLM_TOKEN_COUNT_TOTAL] = usage.total;
  if (usage.cacheRead !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ] = usage.cacheRead;
  if (usage.cacheWrite !== undefined) attrs[SC.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE] = usage.cacheWrite;
  if (response.finishReason !== undefined) {
    const kind = finishKindOf(response.finishReason);
    attrs[SC.LLM_FINISH_REASON] = kind ? OI_FINISH[kind] : response.finishReason;
  }
  const prefix = `${SC.LLM_OUTPUT_MESSAGES}.0.`;
  attrs[prefix + SC.MESSAGE_ROLE] = "assistant";
  attrs[prefix + SC.MESSAGE_CONTENT] = response.text;
  response.toolCalls.forEach((call, j) => {
    const callPrefix = `${prefix}${SC.MESSAGE_TOOL_CALLS}.${j}.`;
    attrs[callPrefix + SC.TOOL_CALL_ID] = call.id;
    attrs[callPrefix + SC.TOOL_CALL_FUNCTION_NAME] = call.name;
    attrs[callPrefix + SC.TOOL_CALL_FUNCTION_ARGUMENTS_JSON] = call.arguments;
  });
}
