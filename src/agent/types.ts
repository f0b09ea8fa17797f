import type { MeterProvider } from "@opentelemetry/api";
import type { Dispatcher } from "undici";
import type { ProviderStyle, ToolDeclaration, Usage } from "./providers/types.js";
import type { Answer, Request, ToolResult } from "./pending.js";
import type { AgentRuntime } from "./runtime-port.js";
import type { ConversationStore } from "./store.js";
import type { Toolkit } from "./toolkit.js";
import type { BodyTransform } from "./request-body.js";
import type { RunContext } from "../events/run-context.js";
import type { PromptRef } from "../runtime/prompt.js";

/** How a run ended: `done` (text answer), `pending` (halted on a suspension), `incomplete` (hit `maxTurns` without text). */
export type RunStatus = "done" | "pending" | "incomplete";

/** Token totals of a run (cache and reasoning counts stay in the raw responses). */
export interface RunUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** One executed tool call of a run, in call order. */
export interface ToolCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  output: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
  /** True on a call that was suspended when the run halted. */
  pending?: true;
}

/** Where a halted run stopped: persisted by the host next to `messages` and `pending`. */
export interface HaltRecord {
  assistantIndex: number;
  calls: { id: string; name: string; state: "completed" | "suspended"; requestId?: string }[];
}

/** What a run, resume or ask resolves to. */
export interface RunResult {
  status: RunStatus;
  /** The final answer text; on `pending`, the request's prompt. */
  text: string;
  /** The whole provider-style transcript after the run (feed it back as `history`). */
  messages: unknown[];
  /** Every executed tool call, in call order. */
  toolCalls: ToolCallRecord[];
  toolCallCount: number;
  /** Token totals summed over this run's provider calls. */
  usage: RunUsage;
  /** Provider calls made by this run. */
  turns: number;
  /** The model the provider reported (else the configured one). */
  model: string;
  /** Set when `status` is `pending`: the request to answer, then pass to `runWithAnswer`. */
  pending?: Request;
  /** Set when the run stopped at `maxTurns`. */
  limit?: "maxTurns";
  /** Set with `pending`: persist it so the resume can rebuild the halted turn exactly. */
  halt?: HaltRecord;
  /** The agent scope uuid. */
  runUuid?: string;
}

/** What `beforeLLM` sees: it may replace the messages or tools sent this turn. */
export interface BeforeLlmEvent {
  messages: unknown[];
  tools: ToolDeclaration[];
  model: string;
  turn: number;
}
/** What `afterLLM` sees: the raw provider response of the turn. */
export interface AfterLlmEvent {
  response: unknown;
  model: string;
  turn: number;
}
/** What `beforeTool` sees: it may rewrite the args or short-circuit with a result. */
export interface BeforeToolEvent {
  name: string;
  args: Record<string, unknown>;
  id: string;
  turn: number;
}
/** What `afterTool` sees: it may replace the result the model gets. */
export interface AfterToolEvent {
  name: string;
  args: Record<string, unknown>;
  result: ToolResult;
  id: string;
  turn: number;
}

/** Loop hooks; any may be async, and any error aborts the run. */
export interface Hooks {
  beforeLLM?(
    e: BeforeLlmEvent,
  ): void | { messages?: unknown[]; tools?: ToolDeclaration[] } | Promise<void | { messages?: unknown[]; tools?: ToolDeclaration[] }>;
  afterLLM?(e: AfterLlmEvent): void | Promise<void>;
  beforeTool?(
    e: BeforeToolEvent,
  ):
    | void
    | { args?: Record<string, unknown>; result?: ToolResult }
    | Promise<void | { args?: Record<string, unknown>; result?: ToolResult }>;
  afterTool?(e: AfterToolEvent): void | { result?: ToolResult } | Promise<void | { result?: ToolResult }>;
}

/** One measurement handed to `onMetric` (also recorded for `client.metrics()` and on `meterProvider`). */
export type Metric =
  | {
      event: "llm";
      model: string;
      status: "ok" | "error";
      ms: number;
      promptTokens: number;
      completionTokens: number;
      runUuid: string;
      turn: number;
    }
  | {
      event: "tool";
      tool: string;
      source: string;
      isError: boolean;
      ms: number;
      pending?: true;
      runUuid: string;
      turn: number;
      toolCallId: string;
    }
  | { event: "run"; model: string; turns: number; toolCalls: number; totalTokens: number; ms: number; error?: string; runUuid: string };

/**
 * What `onError` sees after a failed provider attempt. Aborts never reach it. Exactly one of
 * `status` (the provider answered with a non-2xx status) and `error` (the request failed in
 * transport: connection refused, reset, unreadable reply) is set.
 */
export interface LlmErrorInfo {
  /** a transport failure; absent when the provider answered */
  error?: unknown;
  /** the HTTP status of a non-2xx answer; absent on a transport failure */
  status?: number;
  /** 0-based index of the failed attempt */
  attempt: number;
  /** true for 429, 500, 502, 503, 504, 529 and network errors */
  retryable: boolean;
}

/** Options of `createClient`; an unknown key, or a wrong required one, is a TypeError at construction. */
export interface ClientOptions {
  /** The provider's base URL (e.g. `https://api.openai.com/v1`); the style's path is appended. */
  baseUrl: string;
  /** The wire dialect: `openai` (chat completions) or `anthropic` (messages). */
  style: ProviderStyle;
  /** The model name sent in every body. */
  model: string;
  /**
   * Default: the style's own env key (`OPENAI_API_KEY` for `openai`, `ANTHROPIC_API_KEY` for
   * `anthropic`), then — `openai` style only — `OPENROUTER_API_KEY`. Never the other provider's
   * key, so a secret is not sent to a host it was not issued for. Never logged.
   */
  apiKey?: string;
  /** Extra request headers (merged case-insensitively; credential headers are never traced). */
  headers?: Record<string, string>;
  /** The system prompt of every run. */
  systemPrompt?: string;
  /** Most provider calls per run (a positive integer; default 10). */
  maxTurns?: number;
  /** Retries per provider call for retryable failures (default 2). */
  retries?: number;
  /** Base of the exponential backoff between retries, in ms (default 500). */
  retryBaseMs?: number;
  /** Whole-run deadline (none by default; each provider call still has `requestTimeoutMs`). */
  timeoutMs?: number;
  /**
   * Deadline of one provider call, retries and streamed body included (default 600,000 ms = 10
   * minutes; 0 turns it off). A provider that keeps a stream open with keep-alive comments
   * forever fails with a ProviderTimeoutError when it passes.
   */
  requestTimeoutMs?: number;
  /** Largest provider reply accepted, in bytes; a stream counts all its bytes (default 64 MiB). */
  maxResponseBytes?: number;
  /**
   * Resolves suspensions in-process, returning the answer or a promise of it; without it a
   * suspension halts the run durably. A throw or rejection aborts the run.
   */
  waitFor?: (request: Request) => Answer | Promise<Answer>;
  /** Transcript store for `ask`/`askWithAnswer` (default: in memory, per client). */
  store?: ConversationStore;
  /**
   * The runtime runs are traced into. Default: the process-wide `defaultRuntime()` — if you
   * registered exporters on a runtime of your own, pass it here or its exporters see nothing.
   */
  runtime?: AgentRuntime;
  /** An undici dispatcher for provider calls (proxy, connection pool, test mocks). */
  dispatcher?: Dispatcher;
  /** Name of the `agent` scope each run opens (default `agent`). */
  agentName?: string;
  /** Send a W3C `traceparent` header with each provider call (default true). */
  injectTraceparent?: boolean;
  /** Loop hooks; an array runs in order (see `chainHooks`). */
  hooks?: Hooks | Hooks[];
  /** Receives each metric as it happens; a throw is ignored (telemetry never breaks a run). */
  onMetric?: (metric: Metric) => void;
  /**
   * An OpenTelemetry `MeterProvider` the loop's measurements are also recorded on, through its
   * `relaytrace` meter (versioned as the package): `toolnexus.llm.requests`, `toolnexus.llm.tokens`,
   * `toolnexus.llm.request.duration`, `toolnexus.tool.calls`, `toolnexus.tool.duration` and
   * `toolnexus.run.errors` (see the agent loop guide). None by default — the global provider is
   * never used unasked. What its instruments throw is ignored; `client.metrics()` counts regardless.
   */
  meterProvider?: MeterProvider;
  /**
   * Fields shallow-merged into every provider body (run, stream and translate), over the loop's
   * own fields (e.g. `temperature`, `max_tokens`, `tool_choice`). The loop owns `messages`,
   * `tools` and `stream`: naming one of them makes `createClient` throw a TypeError (failing
   * loudly instead of ignoring it with a warning). Copied when the client is made.
   */
  requestParams?: Record<string, unknown>;
  /**
   * Runs last on every body (after `requestParams`), on a copy: return a new body, or edit it in
   * place and return `undefined` to keep it. What it produces is what is sent and what the `llm`
   * scope records as `data.content`. A throw fails the call (the run rejects).
   */
  bodyTransform?: BodyTransform;
  /**
   * Called after each failed provider attempt (aborts excluded), last attempt included.
   * `"fail"` surfaces the failure now; `"retry"` tries again, but never beyond `retries`.
   * Default: `retryable ? "retry" : "fail"`. A throw rejects the call with that error.
   */
  onError?: (info: LlmErrorInfo) => "retry" | "fail";
  /**
   * The prompt every run's LLM calls were made from (`{ name, version?, template?, variables? }`),
   * recorded on each `llm` scope; a run's own `prompt` option wins. Checked when the client is made.
   */
  prompt?: PromptRef;
}

/** Options of `run`; an unknown key is a TypeError (with the closest known key suggested). */
export interface RunOptions {
  /** Whose run this is: session, user, tags and metadata on every event of the run (`runtime.withContext`). */
  context?: RunContext;
  /** The prompt this run's LLM calls were made from, on each of its `llm` scopes (over the client's `prompt`). */
  prompt?: PromptRef;
  /** The tools the run declares and executes; without one the run has no tools. */
  toolkit?: Toolkit;
  /** A prior provider-style transcript, used verbatim (the system prompt is not re-added). */
  history?: unknown[];
  /** Aborts the run; every open scope still ends. */
  signal?: AbortSignal;
  /** Receives each text delta as it arrives: the provider call is streamed, the result is the same. */
  onText?: (delta: string) => void;
}

/** Options of `ask`; an unknown key is a TypeError (with the closest known key suggested). */
export interface AskOptions {
  /** Whose run this is: session, user, tags and metadata on every event of the run (`runtime.withContext`). */
  context?: RunContext;
  /** The prompt this run's LLM calls were made from, on each of its `llm` scopes (over the client's `prompt`). */
  prompt?: PromptRef;
  toolkit?: Toolkit;
  /**
   * The conversation id in `client.store`. Optional: without it `ask` runs statelessly, like
   * `run` with no history — nothing is loaded or saved.
   */
  id?: string;
  signal?: AbortSignal;
  /** Receives each text delta as it arrives: the provider call is streamed, the result is the same. */
  onText?: (delta: string) => void;
}

/** Options of `stream`: `run`'s, plus `id` to keep conversation state in the store as `ask` does. */
export interface StreamOptions {
  /** Whose run this is: session, user, tags and metadata on every event of the run (`runtime.withContext`). */
  context?: RunContext;
  /** The prompt this run's LLM calls were made from, on each of its `llm` scopes (over the client's `prompt`). */
  prompt?: PromptRef;
  toolkit?: Toolkit;
  history?: unknown[];
  /** The conversation id in `client.store`: its transcript is loaded first and saved when the run ends. */
  id?: string;
  signal?: AbortSignal;
}

/** Options of `runWithAnswer`: the halted run's transcript, request, answer and halt record. */
export interface ResumeOptions {
  /** Whose run this is: session, user, tags and metadata on every event of the run (`runtime.withContext`). */
  context?: RunContext;
  /** The prompt this run's LLM calls were made from, on each of its `llm` scopes (over the client's `prompt`). */
  prompt?: PromptRef;
  toolkit?: Toolkit;
  history: unknown[];
  pending: Request;
  answer: Answer;
  halt?: HaltRecord;
  signal?: AbortSignal;
}

/** Options of `askWithAnswer`: like `ResumeOptions`, with the transcript taken from the store. */
export interface AskResumeOptions {
  /** Whose run this is: session, user, tags and metadata on every event of the run (`runtime.withContext`). */
  context?: RunContext;
  /** The prompt this run's LLM calls were made from, on each of its `llm` scopes (over the client's `prompt`). */
  prompt?: PromptRef;
  toolkit?: Toolkit;
  id: string;
  pending: Request;
  answer: Answer;
  halt?: HaltRecord;
  signal?: AbortSignal;
}

/** Options of `abandon`: the halt record, and the reason written into the abandoned slots (default `cancelled`). */
export interface AbandonOptions {
  halt?: HaltRecord;
  reason?: string;
}

/** One event of `client.stream`, in the order things happen; `done` is always last. */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; id: string; name: string; args: Record<string, unknown> }
  | { type: "pending"; request: Request }
  | { type: "tool_result"; id: string; name: string; output: string; isError: boolean }
  | { type: "usage"; usage: RunUsage }
  | { type: "done"; result: RunResult };

export type { Usage };
