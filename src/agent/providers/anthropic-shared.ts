import { joinUrl } from "../../wire/urls.js";
import type { Json, JsonObject } from "../../events/json.js";
import { count, hasNumber, isDict } from "./shape.js";
import type { ToolDeclaration, Usage } from "./types.js";

/** Anthropic-dialect pieces shared by the codec, the stream parser and translate. */

export const ANTHROPIC_VERSION = "2023-06-01";
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** `{base}/v1/messages`, or `{base}/messages` when the base already ends in `/v1`. */
export function anthropicUrl(baseUrl: string): string {
  const path = baseUrl.split(/[?#]/, 1)[0]!.replace(/\/+$/, "");
  return joinUrl(baseUrl, /\/v1$/.test(path) ? "/messages" : "/v1/messages");
}

export function anthropicTools(tools: readonly ToolDeclaration[]): JsonObject[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
}

/** Anthropic usage → Usage; cache reads and writes are summed into `cachedTokens` when reported. */
export function anthropicUsage(raw: unknown): Usage {
  const u = isDict(raw) ? raw : {};
  const promptTokens = count(u.input_tokens);
  const completionTokens = count(u.output_tokens);
  const usage: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  if (hasNumber(u.cache_read_input_tokens) || hasNumber(u.cache_creation_input_tokens)) {
    usage.cachedTokens = count(u.cache_read_input_tokens) + count(u.cache_creation_input_tokens);
  }
  return usage;
}

/** Block types the assistant message keeps; thinking blocks must be sent back on tool turns. */
export const KEPT_BLOCK_TYPES: ReadonlySet<string> = new Set(["text", "tool_use", "thinking", "redacted_thinking"]);

export function anthropicAssistantMessage(blocks: Json[]): JsonObject {
  return { role: "assistant", content: blocks };
}
