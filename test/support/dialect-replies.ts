import type { ScriptedReply } from "./agent-provider-server.js";

/**
 * Replies in each provider's own shape, with the model name and the usage fields that provider
 * really sends (cached tokens inside `prompt_tokens`, Anthropic's cache writes and reads beside
 * `input_tokens`, Gemini's cached and thinking counts): what pricing reads.
 */

export interface ChatUsage {
  prompt: number;
  completion: number;
  /** `prompt_tokens_details.cached_tokens` (part of `prompt`) */
  cached?: number;
  /** a gateway's own cost in USD (`usage.cost`, as OpenRouter sends it) */
  cost?: number;
}

/** An OpenAI Chat Completions reply: text, or one tool call. */
export function chatCompletion(model: string, usage: ChatUsage, call?: { id: string; name: string; arguments: string }): ScriptedReply {
  const message: Record<string, unknown> = { role: "assistant", content: call ? null : "done" };
  if (call) message.tool_calls = [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }];
  const body: Record<string, unknown> = {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
  if (usage.cost !== undefined) body.cost = usage.cost;
  return {
    json: {
      id: "chatcmpl-7",
      object: "chat.completion",
      created: 1760000000,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: call ? "tool_calls" : "stop" }],
      usage: body,
      service_tier: "default",
    },
  };
}

export interface MessagesUsage {
  /** uncached input tokens (Anthropic's `input_tokens` excludes the cache) */
  input: number;
  output: number;
  cacheWrite?: number;
  cacheRead?: number;
}

/** An Anthropic Messages reply. */
export function anthropicMessage(model: string, usage: MessagesUsage): ScriptedReply {
  return {
    json: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text: "done" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite ?? 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        output_tokens: usage.output,
        service_tier: "standard",
      },
    },
  };
}

export interface GeminiUsage {
  /** `promptTokenCount`, cached content included */
  prompt: number;
  candidates: number;
  cached?: number;
  thoughts?: number;
}

/** A Gemini generateContent reply. */
export function geminiContent(modelVersion: string, usage: GeminiUsage): ScriptedReply {
  const usageMetadata: Record<string, unknown> = {
    promptTokenCount: usage.prompt,
    candidatesTokenCount: usage.candidates,
    totalTokenCount: usage.prompt + usage.candidates + (usage.thoughts ?? 0),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.prompt }],
  };
  if (usage.cached !== undefined) usageMetadata.cachedContentTokenCount = usage.cached;
  if (usage.thoughts !== undefined) usageMetadata.thoughtsTokenCount = usage.thoughts;
  return {
    json: {
      candidates: [{ content: { role: "model", parts: [{ text: "done" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata,
      modelVersion,
      responseId: "resp-1",
    },
  };
}
