import { joinUrl } from "../../wire/urls.js";
import type { JsonObject } from "../../events/json.js";
import { count, hasNumber, isDict } from "./shape.js";
import type { ParsedToolCall, ToolDeclaration, Usage } from "./types.js";

/** OpenAI-dialect pieces shared by the codec, the stream parser and translate. */

export function openAiUrl(baseUrl: string): string {
  return joinUrl(baseUrl, "/chat/completions");
}

export function openAiTools(tools: readonly ToolDeclaration[]): JsonObject[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/** OpenAI usage → Usage; total falls back to prompt + completion when 0 or absent. */
export function openAiUsage(raw: unknown): Usage {
  const u = isDict(raw) ? raw : {};
  const promptTokens = count(u.prompt_tokens);
  const completionTokens = count(u.completion_tokens);
  const total = count(u.total_tokens);
  const usage: Usage = { promptTokens, completionTokens, totalTokens: total > 0 ? total : promptTokens + completionTokens };
  const details = u.prompt_tokens_details;
  if (isDict(details) && hasNumber(details.cached_tokens)) usage.cachedTokens = count(details.cached_tokens);
  return usage;
}

/** Builds the OpenAI assistant transcript message for a turn. */
export function openAiAssistantMessage(text: string, calls: readonly ParsedToolCall[]): JsonObject {
  const msg: JsonObject = { role: "assistant", content: text };
  if (calls.length > 0) {
    msg.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
  }
  return msg;
}

