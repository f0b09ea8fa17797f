import type { Json, JsonObject } from "../../events/json.js";
import { anthropicAssistantMessage, anthropicTools, anthropicUrl, anthropicUsage, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION, KEPT_BLOCK_TYPES } from "./anthropic-shared.js";
import { parseAnthropicStream } from "./anthropic-stream.js";
import { ProviderResponseError } from "./errors.js";
import { mapFinishReason } from "./finish-reason.js";
import { errorEnvelopeMessage, isDict, kindOf, nonEmptyStr, str } from "./shape.js";
import type { BodyOptions, ParsedToolCall, ParsedTurn, ProviderCodec, ToolResultEntry } from "./types.js";

export const ANTHROPIC_ROUTE = "anthropic.messages";

function readToolUse(block: Record<string, unknown>, i: number): ParsedToolCall {
  const id = nonEmptyStr(block.id);
  if (id === undefined) throw new ProviderResponseError(`Anthropic reply: content[${i}] (tool_use) has no id`);
  const name = nonEmptyStr(block.name);
  if (name === undefined) throw new ProviderResponseError(`Anthropic reply: content[${i}] (tool_use) has no name`);
  const input = block.input ?? {};
  return { id, name, args: isDict(input) ? input : {}, arguments: JSON.stringify(input) };
}

function parseAnthropicResponse(body: unknown): ParsedTurn {
  if (!isDict(body)) throw new ProviderResponseError(`Anthropic reply is ${kindOf(body)}, expected a JSON object`);
  const content = body.content;
  if (!Array.isArray(content)) {
    const err = errorEnvelopeMessage(body);
    throw new ProviderResponseError(
      err !== undefined ? `Anthropic reply has no content array; provider error: ${err}` : "Anthropic reply has no content array",
    );
  }
  let text = "";
  const toolCalls: ParsedToolCall[] = [];
  const kept: Json[] = [];
  content.forEach((block: unknown, i: number) => {
    if (!isDict(block)) throw new ProviderResponseError(`Anthropic reply: content[${i}] is ${kindOf(block)}, expected an object`);
    const type = str(block.type);
    if (type === "text") {
      const t = str(block.text) ?? "";
      text += t;
      // The API rejects empty text blocks when the transcript is sent back.
      if (t !== "") kept.push(block as JsonObject);
    } else if (type === "tool_use") {
      const call = readToolUse(block, i);
      toolCalls.push(call);
      kept.push({ type: "tool_use", id: call.id, name: call.name, input: (block.input ?? {}) as Json });
    } else if (type !== undefined && KEPT_BLOCK_TYPES.has(type)) {
      kept.push(block as JsonObject);
    }
  });
  const rawFinishReason = str(body.stop_reason);
  return {
    text,
    toolCalls,
    assistantMessage: anthropicAssistantMessage(kept),
    usage: anthropicUsage(body.usage),
    finishReason: mapFinishReason(rawFinishReason, toolCalls.length > 0),
    rawFinishReason,
    model: str(body.model),
  };
}

export const anthropicCodec: ProviderCodec = {
  style: "anthropic",
  route: ANTHROPIC_ROUTE,
  url: anthropicUrl,

  authHeaders(apiKey) {
    const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
    if (apiKey) headers["x-api-key"] = apiKey;
    return headers;
  },

  startMessages({ prompt, history }) {
    // The system prompt travels in the body's `system` field on every call, history or not.
    return [...(history ?? []), { role: "user", content: prompt }];
  },

  buildBody(opts: BodyOptions) {
    const body: JsonObject = {
      model: opts.model,
      max_tokens: opts.maxTokens !== undefined && opts.maxTokens > 0 ? opts.maxTokens : ANTHROPIC_DEFAULT_MAX_TOKENS,
    };
    if (opts.systemPrompt !== "") body.system = opts.systemPrompt;
    body.messages = opts.messages as Json[];
    if (opts.tools.length > 0) body.tools = anthropicTools(opts.tools);
    if (opts.stream === true) body.stream = true;
    return body;
  },

  parseResponse: parseAnthropicResponse,

  toolResultMessages(results: ToolResultEntry[]) {
    if (results.length === 0) return [];
    const blocks = results.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output, is_error: r.isError }));
    return [{ role: "user", content: blocks }];
  },

  lastToolTurn(messages) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (!isDict(m) || m.role !== "assistant" || !Array.isArray(m.content)) continue;
      const calls = m.content
        .filter((b: unknown): b is Record<string, unknown> => isDict(b) && b.type === "tool_use")
        .map((b) => ({ id: str(b.id) ?? "", name: str(b.name) ?? "" }));
      if (calls.length > 0) return { index: i, calls };
    }
    return undefined;
  },

  parseStream: parseAnthropicStream,
};
