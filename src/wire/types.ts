import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";

/** The provider dialects relaytrace reads and writes (the `style` of `createClient`). */
export type Dialect = "openai" | "openai-responses" | "anthropic" | "gemini";

/** How a reply ended, on one scale for every dialect. */
export type FinishKind = "stop" | "length" | "tool_calls" | "content_filter";

/** A tool call, as any dialect carries it. */
export interface WireToolCall {
  id: string;
  name: string;
  /** the arguments as JSON text (kept as sent when the provider sent text) */
  arguments: string;
  /** the arguments as a value (parsed when they were text and parse; else the text) */
  input: Json;
  /** keys of the provider's entry beyond id, type, name, function, arguments and input */
  extra?: JsonObject;
}

/** One piece of a message, in order. */
export type WirePart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; call: WireToolCall }
  | { type: "tool_result"; toolCallId: string; name?: string; output: Json; text: string; isError?: boolean }
  /** images, files, audio and anything else: kept verbatim */
  | { type: "media"; raw: Json };

export type WireRole = "system" | "user" | "assistant" | "tool";

/**
 * One transcript entry of a request, decoded one-to-one (entry i of the dialect's list is
 * message i). A message holding only tool results has role `tool`.
 */
export interface WireMessage {
  role: WireRole;
  parts: WirePart[];
  /** the text parts joined by "\n" */
  text: string;
  /** the entry's content as sent (string or parts), for readers that keep rich parts */
  content: Json;
}

/** A tool the request offers the model. */
export interface WireToolDef {
  name: string;
  description?: string;
  inputSchema: JsonObject;
  /** the entry as sent */
  raw: Json;
}

export type WireToolChoice = "auto" | "none" | "required" | { name: string };

/** Sampling and output settings, under one name whatever the dialect calls them. */
export interface WireSettings {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  choiceCount?: number;
  stream?: boolean;
  reasoningEffort?: string;
}

/** A decoded request body. */
export interface WireRequest {
  model?: string;
  /** the system prompt (hoisted from system/developer messages where the dialect has them inline) */
  system?: string;
  messages: WireMessage[];
  tools: WireToolDef[];
  toolChoice?: WireToolChoice;
  settings: WireSettings;
  /** the body without the transcript, the tools and the system prompt: the invocation parameters */
  parameters: JsonObject;
}

/**
 * Token counts of one reply, one meaning in every dialect: `inputTokens` INCLUDES cached tokens
 * (cache reads and writes), as OpenAI's `prompt_tokens`, ATIF and the GenAI conventions count
 * them; the cached part is reported beside. `outputTokens` includes reasoning tokens.
 * A field is undefined when the provider did not report it.
 */
export interface WireUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /** a cost the provider reported itself (e.g. an OpenRouter `usage.cost`), in USD */
  costUsd?: number;
  /** usage keys beyond the input, output, cache and reasoning counts (a reported total among them), as sent */
  extra?: JsonObject;
}

/** A decoded reply (a whole response body, or an assembled stream). */
export interface WireResponse {
  id?: string;
  model?: string;
  parts: WirePart[];
  /** the text parts joined with "" (what the loop returns as the turn's text) */
  text: string;
  /** reasoning/thinking text joined with "\n", when any */
  reasoning?: string;
  toolCalls: WireToolCall[];
  finish?: FinishKind;
  rawFinishReason?: string;
  usage?: WireUsage;
  /**
   * the reply's own items (Anthropic content blocks, Gemini parts, Responses output items) kept
   * verbatim: thinking signatures must go back to the provider unchanged
   */
  native?: Json[];
}

/** A tool's result on its way back to the model. */
export interface WireToolResult {
  id: string;
  name: string;
  output: string;
  isError: boolean;
}

/** What `encodeRequest` builds a body from: the transcript is already in the dialect. */
export interface EncodeRequestOptions {
  model: string;
  system?: string;
  messages: readonly Json[];
  tools: readonly WireToolDef[];
  toolChoice?: WireToolChoice;
  maxTokens?: number;
  stream?: boolean;
}

/** One server-sent event of a provider stream: `data` is JSON text (or `[DONE]`). */
export interface WireStreamEvent {
  event?: string;
  data: string;
}

/** Assembles one streamed reply, event by event. */
export interface StreamAssembler {
  /** feeds one event; returns the text deltas it carried. Throws WireShapeError on a bad or error event */
  push(event: WireStreamEvent): string[];
  /** true once the stream's terminal event was seen */
  readonly finished: boolean;
  /** why the stream is not complete (it ended early), or undefined when it is */
  incomplete(): string | undefined;
  /** the assembled reply. Throws WireShapeError when a tool call has no id or name */
  result(): WireResponse;
}

/** One dialect, as data: decode and encode requests, replies and streams. */
export interface WireCodec {
  readonly dialect: Dialect;
  /** the ATOF `data_schema` of this dialect's `llm` events */
  readonly schema: DataSchema;
  /** the `llm` event name relaytrace's loop gives a call in this dialect */
  readonly eventName: string;
  /** provider name for OpenInference `llm.provider` */
  readonly provider: string;
  /** whether a system prompt is a transcript entry (Chat Completions) rather than a body field */
  readonly systemInTranscript: boolean;
  endpoint(baseUrl: string, model: string, stream: boolean): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;

  decodeRequest(body: Json): WireRequest;
  /** transcript entries, one-to-one */
  decodeMessages(messages: readonly unknown[]): WireMessage[];
  /** lenient by default (skips what it cannot read); `strict` throws WireShapeError naming the problem */
  decodeResponse(body: unknown, strict?: boolean): WireResponse;
  streamAssembler(): StreamAssembler;
  /** whether a body has this dialect's request / response shape (for foreign files without a schema) */
  looksLikeRequest(body: JsonObject): boolean;
  looksLikeResponse(body: JsonObject): boolean;

  encodeRequest(options: EncodeRequestOptions): JsonObject;
  /** transcript entries in this dialect (system messages are dropped unless `systemInTranscript`) */
  encodeMessages(messages: readonly WireMessage[]): Json[];
  userMessage(text: string): Json;
  /** the transcript entries that record a reply */
  assistantMessages(response: WireResponse): Json[];
  toolResultMessages(results: readonly WireToolResult[]): Json[];
  encodeResponse(response: WireResponse): JsonObject;
  encodeStream(response: WireResponse): WireStreamEvent[];
}
