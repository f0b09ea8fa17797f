import type { Json, JsonObject } from "../events/json.js";
import { openaiChatCodec } from "../wire/index.js";
import type { WireToolDef } from "../wire/index.js";
import { mergeHeaders } from "./providers/headers.js";
import { postJson } from "./providers/transport.js";
import type { AttemptFailure, PostOptions, RetryInfo } from "./providers/transport.js";
import { shapeBody, type BodyTransform } from "./request-body.js";
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

function toolDefs(toolkit: TranslateOptions["toolkit"]): WireToolDef[] {
  return (toolkit?.declarations() ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, raw: null }));
}

/** OpenAI upstream: a near passthrough (messages, extra tools and tool_choice verbatim). */
function openAiBody(deps: TranslateDeps, options: TranslateOptions): JsonObject {
  const decoded = openaiChatCodec.decodeMessages(options.messages);
  const system = options.system || deps.systemPrompt || "";
  const messages = [...options.messages] as Json[];
  if (system !== "" && !decoded.some((m) => m.role === "system")) messages.unshift({ role: "system", content: system });
  const body = openaiChatCodec.encodeRequest({ model: deps.model, messages, tools: toolDefs(options.toolkit) });
  delete body.tool_choice;
  const tools: Json[] = [...((body.tools as Json[] | undefined) ?? []), ...((options.tools ?? []) as Json[])];
  if (tools.length > 0) body.tools = tools;
  if (options.toolChoice !== undefined) body.tool_choice = options.toolChoice as Json;
  if (options.maxTokens !== undefined && options.maxTokens > 0) body.max_tokens = options.maxTokens;
  return body;
}

/**
 * Any other upstream: the OpenAI-style request is decoded into the wire shape and encoded in the
 * upstream's dialect (system hoisted, tool turns and results mapped, tools and tool_choice mapped).
 */
function mappedBody(deps: TranslateDeps, options: TranslateOptions): JsonObject {
  const wire = deps.codec.wire;
  const request = openaiChatCodec.decodeRequest({
    messages: options.messages as Json[],
    tools: (options.tools ?? []) as Json[],
    ...(options.toolChoice !== undefined ? { tool_choice: options.toolChoice as Json } : {}),
  });
  const hoisted = request.messages
    .filter((m) => m.role === "system" && m.text !== "")
    .map((m) => m.text)
    .join("\n\n");
  const system = options.system || deps.systemPrompt || hoisted;
  return wire.encodeRequest({
    model: deps.model,
    system,
    messages: wire.encodeMessages(request.messages),
    tools: [...toolDefs(options.toolkit), ...request.tools],
    ...(request.toolChoice !== undefined ? { toolChoice: request.toolChoice } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  });
}

/**
 * One provider call for an OpenAI-style transcript: no loop, no tool execution,
 * no state. Against any other upstream the transcript, tools and tool_choice are mapped.
 */
export async function translate(deps: TranslateDeps, options: TranslateOptions): Promise<TranslateResult> {
  const { codec } = deps;
  const base = codec.style === "openai" ? openAiBody(deps, options) : mappedBody(deps, options);
  const body = shapeBody(deps, base);
  const headers = mergeHeaders(codec.authHeaders(deps.apiKey), deps.headers);
  const send = async (request?: { headers?: Record<string, Json>; content?: Json }): Promise<unknown> => {
    // Headers added by the wrapper join ours; ours (credentials included) win on a clash.
    const post: PostOptions = {
      url: codec.url(deps.baseUrl, deps.model, false),
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
