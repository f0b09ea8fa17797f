import type { Json, JsonObject } from "../../events/json.js";

export type { Json, JsonObject };

/** The wire dialect a client speaks: OpenAI chat completions or Anthropic messages. */
export type ProviderStyle = "openai" | "anthropic";

/** A provider-neutral tool declaration (each codec renders it in its own shape). */
export interface ToolDeclaration {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

export interface ParsedToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** raw JSON text as the provider sent it (Anthropic: JSON.stringify(input)) */
  arguments: string;
}

/** Token counts of one provider reply, normalised across dialects. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens?: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface ParsedTurn {
  text: string;
  toolCalls: ParsedToolCall[];
  /** the message to append to the transcript, in the provider's dialect */
  assistantMessage: JsonObject;
  usage: Usage;
  finishReason: FinishReason;
  rawFinishReason?: string;
  model?: string;
}

export interface ToolResultEntry {
  id: string;
  name: string;
  output: string;
  isError: boolean;
}

export interface BodyOptions {
  model: string;
  systemPrompt: string;
  messages: unknown[];
  tools: ToolDeclaration[];
  stream?: boolean;
  maxTokens?: number;
}

export type StreamDelta = { type: "text"; delta: string } | { type: "first_chunk" };

export interface SseEvent {
  event?: string;
  data: string;
}

/** One dialect's wire mapping: URL, auth headers, request bodies, reply and stream parsing, transcript edits. */
export interface ProviderCodec {
  readonly style: ProviderStyle;
  /** LLM event name: "openai.chat_completions" | "anthropic.messages" */
  readonly route: string;
  url(baseUrl: string): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** transcript start for a new run: OpenAI adds the system message only when non-empty and there is no history; then the user turn */
  startMessages(opts: { systemPrompt: string; prompt: string; history?: unknown[] }): unknown[];
  buildBody(opts: BodyOptions): JsonObject;
  /** throws ProviderResponseError saying what is missing when the reply is not the expected shape */
  parseResponse(body: unknown): ParsedTurn;
  toolResultMessages(results: ToolResultEntry[]): unknown[];
  /** the last assistant message with tool calls (OpenAI tool_calls / Anthropic tool_use blocks), for durable resume */
  lastToolTurn(messages: unknown[]): { index: number; calls: { id: string; name: string }[] } | undefined;
  /** consumes the provider's SSE events, yields text deltas, returns the assembled turn (same shape as parseResponse) */
  parseStream(events: AsyncIterable<SseEvent>): AsyncGenerator<StreamDelta, ParsedTurn>;
}
