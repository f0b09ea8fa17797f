import type { Dispatcher } from "undici";
import type { ProviderStyle, ToolDeclaration, Usage } from "./providers/types.js";
import type { Answer, Request, ToolResult } from "./pending.js";
import type { AgentRuntime } from "./runtime-port.js";
import type { ConversationStore } from "./store.js";
import type { Toolkit } from "./toolkit.js";
import type { BodyTransform } from "./request-body.js";

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

export interface RunResult {
  status: RunStatus;
  text: string;
  messages: unknown[];
  toolCalls: ToolCallRecord[];
  toolCallCount: number;
  usage: RunUsage;
  turns: number;
  model: string;
  pending?: Request;
  limit?: "maxTurns";
  halt?: HaltRecord;
  /** The agent scope uuid. */
  runUuid?: string;
}

export interface BeforeLlmEvent { messages: unknown[]; tools: ToolDeclaration[]; model: string; turn: number }
export interface AfterLlmEvent { response: unknown; model: string; turn: number }
export interface BeforeToolEvent { name: string; args: Record<string, unknown>; id: string; turn: number }
export interface AfterToolEvent { name: string; args: Record<string, unknown>; result: ToolResult; id: string; turn: number }

/** Loop hooks; any may be async, and any error aborts the run. */
export interface Hooks {
  beforeLLM?(e: BeforeLlmEvent): void | { messages?: unknown[]; tools?: ToolDeclaration[] } | Promise<void | { messages?: unknown[]; tools?: ToolDeclaration[] }>;
  afterLLM?(e: AfterLlmEvent): void | Promise<void>;
  beforeTool?(e: BeforeToolEvent): void | { args?: Record<string, unknown>; result?: ToolResult } | Promise<void | { args?: Record<string, unknown>; result?: ToolResult }>;
  afterTool?(e: AfterToolEvent): void | { result?: ToolResult } | Promise<void | { result?: ToolResult }>;
}

export type Metric =
  | { event: "llm"; model: string; status: "ok" | "error"; ms: number; promptTokens: number; completionTokens: number; runUuid: string; turn: number }
  | { event: "tool"; tool: string; source: string; isError: boolean; ms: number; pending?: true; runUuid: string; turn: number; toolCallId: string }
  | { event: "run"; model: string; turns: number; toolCalls: number; totalTokens: number; ms: number; error?: string; runUuid: string };

/** What `onError` sees after a failed provider attempt (agent-loop §5). Aborts never reach it. */
export interface LlmErrorInfo {
  /** the error this attempt would surface; for an HTTP failure a ProviderHttpError carrying the body text */
  error?: unknown;
  /** the HTTP status, when the provider answered */
  status?: number;
  /** 0-based index of the failed attempt */
  attempt: number;
  /** true for 429, 500, 502, 503, 504 and network errors */
  retryable: boolean;
}

export interface ClientOptions {
  baseUrl: string;
  style: ProviderStyle;
  model: string;
  /** Default: env OPENROUTER_API_KEY, then the style's own key (OPENAI_API_KEY / ANTHROPIC_API_KEY). */
  apiKey?: string;
  headers?: Record<string, string>;
  systemPrompt?: string;
  maxTurns?: number;
  retries?: number;
  retryBaseMs?: number;
  /** Whole-run deadline. */
  timeoutMs?: number;
  /** Resolves suspensions in-process; without it a suspension halts the run durably. */
  waitFor?: (request: Request) => Promise<Answer>;
  store?: ConversationStore;
  runtime?: AgentRuntime;
  dispatcher?: Dispatcher;
  agentName?: string;
  /** Send a W3C `traceparent` header with each provider call (default true). */
  injectTraceparent?: boolean;
  hooks?: Hooks | Hooks[];
  onMetric?: (metric: Metric) => void;
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
}

export interface RunOptions {
  toolkit: Toolkit;
  history?: unknown[];
  signal?: AbortSignal;
}

export interface AskOptions {
  toolkit: Toolkit;
  id?: string;
  signal?: AbortSignal;
}

export interface ResumeOptions {
  toolkit: Toolkit;
  history: unknown[];
  pending: Request;
  answer: Answer;
  halt?: HaltRecord;
  signal?: AbortSignal;
}

export interface AskResumeOptions {
  toolkit: Toolkit;
  id: string;
  pending: Request;
  answer: Answer;
  halt?: HaltRecord;
  signal?: AbortSignal;
}

export interface AbandonOptions {
  halt?: HaltRecord;
  reason?: string;
}

export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; id: string; name: string; args: Record<string, unknown> }
  | { type: "pending"; request: Request }
  | { type: "tool_result"; id: string; name: string; output: string; isError: boolean }
  | { type: "usage"; usage: RunUsage }
  | { type: "done"; result: RunResult };

export type { Usage };
