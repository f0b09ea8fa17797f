import type { Dispatcher } from "undici";
import type { PromptRef } from "../runtime/prompt.js";
import type { ProviderCodec } from "./providers/types.js";
import type { Answer, Request } from "./pending.js";
import type { AgentRuntime } from "./runtime-port.js";
import type { Toolkit } from "./toolkit.js";
import type { ChainedHooks } from "./hooks.js";
import type { MetricsRecorder } from "./metrics.js";
import type { BodyTransform } from "./request-body.js";
import type { LlmErrorInfo, Metric, StreamEvent } from "./types.js";

/** Settings a client resolves once and every run shares. */
export interface ClientSettings {
  runtime: AgentRuntime;
  codec: ProviderCodec;
  baseUrl: string;
  model: string;
  apiKey?: string;
  headers: Record<string, string>;
  systemPrompt: string;
  maxTurns: number;
  retries: number;
  retryBaseMs: number;
  timeoutMs?: number;
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  waitFor?: (request: Request) => Answer | Promise<Answer>;
  dispatcher?: Dispatcher;
  agentName: string;
  injectTraceparent: boolean;
  hooks: ChainedHooks;
  /** The client's one metrics path: built-in Prometheus meter, the app's meter provider, `onMetric`. */
  metrics: MetricsRecorder;
  /** validated and copied by `createClient` */
  requestParams?: Readonly<Record<string, unknown>>;
  bodyTransform?: BodyTransform;
  onError?: (info: LlmErrorInfo) => "retry" | "fail";
  /** The client's checked `prompt` option: the default of every run. */
  prompt?: PromptRef;
}

/** One run in progress. */
export interface RunContext {
  settings: ClientSettings;
  toolkit: Toolkit;
  signal: AbortSignal;
  runUuid: string;
  /** Set when streaming: receives events as they happen. */
  emit?: (event: StreamEvent) => void;
  /** The prompt the run's LLM calls were made from (the run's option, else the client's). */
  prompt?: PromptRef;
}

/** Records one loop measurement on every reader of the client's metrics (never throws). */
export function emitMetric(settings: ClientSettings, metric: Metric): void {
  settings.metrics.record(metric);
}
