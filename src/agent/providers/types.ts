import type { Json, JsonObject } from "../../events/json.js";
import type { Dialect, FinishKind, WireCodec, WireResponse } from "../../wire/index.js";

export type { Json, JsonObject };

/** The wire dialect a client speaks: Chat Completions, Responses, Anthropic Messages or Gemini. */
export type ProviderStyle = Dialect;

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

/**
 * Token counts of one provider reply, one meaning in every dialect: `promptTokens` INCLUDES
 * cached tokens (as OpenAI's `prompt_tokens`, ATIF and the GenAI conventions count them);
 * `cachedTokens` (cache reads plus writes) is the cached part, reported beside.
 */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens?: number;
}

export type FinishReason = FinishKind;

export interface ParsedTurn {
  text: string;
  toolCalls: ParsedToolCall[];
  /** the transcript entries to append, in the provider's dialect (one message; Responses: its output items) */
  assistantMessages: Json[];
  usage: Usage;
  finishReason: FinishReason;
  rawFinishReason?: string;
  model?: string;
  /** the decoded reply */
  response: WireResponse;
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

/** One dialect's mapping for the loop: URL, auth headers, request bodies, reply and stream parsing, transcript edits. */
export interface ProviderCodec {
  readonly style: ProviderStyle;
  /** LLM event name: "openai.chat_completions" | "openai.responses" | "anthropic.messages" | "gemini.generate_content" */
  readonly route: string;
  /** the dialect's codec in `src/wire` */
  readonly wire: WireCodec;
  url(baseUrl: string, model?: string, stream?: boolean): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /**
   * transcript start for a new run: Chat Completions adds the system message only when non-empty
   * and there is no history; then the user turn
   */
  startMessages(opts: { systemPrompt: string; prompt: string; history?: unknown[] }): unknown[];
  buildBody(opts: BodyOptions): JsonObject;
  /** throws ProviderResponseError saying what is missing when the reply is not the expected shape */
  parseResponse(body: unknown): ParsedTurn;
  toolResultMessages(results: ToolResultEntry[]): unknown[];
  /** the last assistant turn with tool calls, for durable resume: the index of its last entry and its calls */
  lastToolTurn(messages: unknown[]): { index: number; calls: ParsedToolCall[] } | undefined;
  /** the tool calls of the assistant turn ending at `index` */
  toolCallsAt(messages: unknown[], index: number): ParsedToolCall[];
  /** tool results already in the transcript after `index`, by call id */
  toolResultsAfter(messages: unknown[], index: number): Map<string, { output: string; isError: boolean }>;
  /** consumes the provider's SSE events, yields text deltas, returns the assembled turn (same shape as parseResponse) */
  parseStream(events: AsyncIterable<SseEvent>): AsyncGenerator<StreamDelta, ParsedTurn>;
}
