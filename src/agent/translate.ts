import type { Json, JsonObject } from "../events/json.js";
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicTools } from "./providers/anthropic-shared.js";
import { mergeHeaders } from "./providers/headers.js";
import { openAiTools } from "./providers/openai-shared.js";
import { isDict } from "./providers/shape.js";
import { postJson } from "./providers/transport.js";
import type { AttemptFailure, PostOptions, RetryInfo } from "./providers/transport.js";
import { shapeBody, type BodyTransform } from "./request-body.js";
import { anthropicMessages, anthropicToolChoice, anthropicToolsFromOpenAi, hoistedSystem } from "./providers/translate-anthropic.js";
import type { FinishReason, ProviderCodec, ToolDeclaration, Usage } from "./providers/types.js";
import type { Dispatcher } from "undici";

/** Wraps the single provider call (the loop passes `runtime.executeLlm`). */
export type CallLlm = (
  route: string,
  request: { headers: Record<string, string>; content: JsonObject },
  /**
   * `request`, when given, is the request the wrapper hands back (e.g. `executeLlm` adds `traceparent`,
   * request intercepts may rewrite it): its content is sent and its headers join ours.
   */
  send: (request?: { headers?: Record<string, Json>; content?: Json }) => Promise<unknown>,
) => Promise<unknown>;

export interface TranslateDeps {
  codec: ProviderCodec;
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** extra headers; they override the codec's headers */
  headers?: Record<string, string>;
  systemPrompt?: string;
  retries?: number;
  retryBaseMs?: number;
  timeoutMs?: number;
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  onRetry?: (info: RetryInfo) => void;
  /** shallow-merged into the body; `messages`, `tools`, `stream` are rejected with a TypeError */
  requestParams?: Readonly<Record<string, unknown>>;
  /** runs last on the body; `undefined` keeps it */
  bodyTransform?: BodyTransform;
  /** decides after each failed attempt (see `ClientOptions.onError`) */
  onError?: (info: AttemptFailure) => "retry" | "fail";
  callLlm: CallLlm;
}

/** Input of `client.translate`: an OpenAI-style transcript and tools, sent once in the client's own style. */
export interface TranslateOptions {
  /** an OpenAI-style chat transcript */
  messages: unknown[];
  /** OpenAI-style tool entries; appended after the toolkit's declarations */
  tools?: unknown[];
  toolkit?: { declarations(): ToolDeclaration[] };
  toolChoice?: unknown;
  system?: string;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface TranslateToolCall {
  id: string;
  name: string;
  /** JSON text */
  arguments: string;
}

/** Output of `client.translate`: the reply in OpenAI terms (text, tool calls, finish reason, usage). */
export interface TranslateResult {
  text: string;
  toolCalls: TranslateToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  model: string;
  /** the provider's decoded reply */
  raw?: unknown;
}

function stringHeaders(headers: Record<string, Json> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (typeof v === "string" || typeof v === "number") out[k] = String(v);
  return out;
}

function hasSystemMessage(messages: readonly unknown[]): boolean {
  return messages.some((m) => isDict(m) && (m.role === "system" || m.role === "developer"));
}

function openAiBody(deps: TranslateDeps, options: TranslateOptions): JsonObject {
  const system = options.system || deps.systemPrompt || "";
  const messages = [...options.messages] as Json[];
  if (system !== "" && !hasSystemMessage(options.messages)) messages.unshift({ role: "system", content: system });
  const body: JsonObject = { model: deps.model, messages };
  const tools: Json[] = [...openAiTools(options.toolkit?.declarations() ?? []), ...((options.tools ?? []) as Json[])];
  if (tools.length > 0) body.tools = tools;
  if (options.toolChoice !== undefined) body.tool_choice = options.toolChoice as Json;
  if (options.maxTokens !== undefined && options.maxTokens > 0) body.max_tokens = options.maxTokens;
  return body;
}

function anthropicBody(deps: TranslateDeps, options: TranslateOptions): JsonObject {
  const system = options.system || deps.systemPrompt || hoistedSystem(options.messages);
  const body: JsonObject = {
    model: deps.model,
    max_tokens: options.maxTokens !== undefined && options.maxTokens > 0 ? options.maxTokens : ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  if (system !== "") body.system = system;
  body.messages = anthropicMessages(options.messages);
  const tools = [...anthropicTools(options.toolkit?.declarations() ?? []), ...anthropicToolsFromOpenAi(options.tools ?? [])];
  if (tools.length > 0) body.tools = tools;
  const choice = anthropicToolChoice(options.toolChoice);
  if (choice !== undefined) body.tool_choice = choice;
  return body;
}

/**
 * One provider call for an OpenAI-style transcript: no loop, no tool execution,
 * no state. Against an Anthropic upstream the transcript, tools and tool_choice are mapped.
 */
export async function translate(deps: TranslateDeps, options: TranslateOptions): Promise<TranslateResult> {
  const { codec } = deps;
  const base = codec.style === "anthropic" ? anthropicBody(deps, options) : openAiBody(deps, options);
  const body = shapeBody(deps, base);
  const headers = mergeHeaders(codec.authHeaders(deps.apiKey), deps.headers);
  const send = async (request?: { headers?: Record<string, Json>; content?: Json }): Promise<unknown> => {
    // Headers added by the wrapper join ours; ours (credentials included) win on a clash.
    const post: PostOptions = {
      url: codec.url(deps.baseUrl),
      headers: mergeHeaders(stringHeaders(request?.headers), headers),
      body: request?.content ?? body,
    };
    if (options.signal !== undefined) post.signal = options.signal;
    if (deps.retries !== undefined) post.retries = deps.retries;
    if (deps.retryBaseMs !== undefined) post.retryBaseMs = deps.retryBaseMs;
    // The shorter of the run deadline and the per-call deadline bounds a translate call.
    const timeouts = [deps.timeoutMs, deps.requestTimeoutMs].filter((t): t is number => t !== undefined && t > 0);
    if (timeouts.length > 0) post.timeoutMs = Math.min(...timeouts);
    else if (deps.requestTimeoutMs === 0) post.timeoutMs = 0;
    if (deps.maxResponseBytes !== undefined) post.maxResponseBytes = deps.maxResponseBytes;
    if (deps.dispatcher !== undefined) post.dispatcher = deps.dispatcher;
    if (deps.onRetry !== undefined) post.onRetry = deps.onRetry;
    if (deps.onError !== undefined) post.onError = deps.onError;
    return (await postJson(post)).json;
  };
  // Credentials never travel into the event record; the real request keeps them.
  const raw = await deps.callLlm(codec.route, { headers, content: body }, send);
  const turn = codec.parseResponse(raw);
  return {
    text: turn.text,
    toolCalls: turn.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    finishReason: turn.finishReason,
    usage: turn.usage,
    model: turn.model ?? deps.model,
    raw,
  };
}
