/**
 * What relaytrace reads of the events `ai` 7 hands a telemetry integration, written out here so
 * this package needs no types of `ai` 7 (its development copy of `ai` is 6). Each shape is a part
 * of the SDK's own event, so the SDK's events are assignable to them; everything not listed is
 * left alone, and every field relaytrace reads is checked before use.
 */

import type { Diagnostic } from "../../wire/diagnostics.js";

/** The SDK's token usage (`LanguageModelUsage`). */
export interface TelemetryUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined };
}

interface Correlated {
  /** The id of the generation call (one `generateText`, `streamText` or agent run). */
  readonly callId: string;
  /** When the event happened (ms since the epoch), set when the SDK reports it later (durable runs). */
  readonly timestamp?: number;
}

/** `onStart`: a generation (or another operation) begins. */
export interface RunStartEvent extends Correlated {
  /** `ai.generateText` or `ai.streamText`; other operations are not traced. */
  readonly operationId: string;
  readonly provider?: string;
  readonly modelId?: string;
  readonly instructions?: unknown;
  readonly messages?: readonly unknown[];
  readonly functionId?: string | undefined;
}

/** `onLanguageModelCallStart`: one provider call, with the prompt the SDK sends. */
export interface ModelCallStartEvent extends Correlated {
  readonly provider: string;
  readonly modelId: string;
  readonly instructions?: unknown;
  readonly messages?: readonly unknown[];
  readonly tools?: ReadonlyArray<Record<string, unknown>> | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly temperature?: number | undefined;
  readonly topP?: number | undefined;
  readonly topK?: number | undefined;
  readonly presencePenalty?: number | undefined;
  readonly frequencyPenalty?: number | undefined;
  readonly stopSequences?: readonly string[] | undefined;
  readonly seed?: number | undefined;
}

/** `onLanguageModelCallEnd`: the provider call's parsed reply. */
export interface ModelCallEndEvent extends Correlated {
  readonly provider: string;
  readonly modelId: string;
  readonly finishReason: string;
  readonly usage: TelemetryUsage;
  readonly content: ReadonlyArray<{ readonly type: string }>;
  readonly responseId?: string;
  readonly performance?: { readonly timeToFirstOutputMs?: number | undefined };
}

/** The call a tool execution answers. */
export interface TelemetryToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** `onToolExecutionStart`. */
export interface ToolStartEvent extends Correlated {
  readonly toolCall: TelemetryToolCall;
}

/** `onToolExecutionEnd`: `toolOutput.type` is `tool-result` (with `output`) or `tool-error` (with `error`). */
export interface ToolEndEvent extends Correlated {
  readonly toolCall: TelemetryToolCall;
  readonly toolOutput: { readonly type: string; readonly output?: unknown; readonly error?: unknown };
}

/** `onStepError`: a step failed before it produced a result (its model call threw). */
export interface StepErrorEvent extends Correlated {
  readonly error: unknown;
}

/** `onEnd` of a generation: the final text, finish reason and the usage of all steps. */
export interface RunEndEvent {
  readonly callId?: string;
  readonly timestamp?: number;
  readonly text?: unknown;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
}

/** `onAbort`: a streamed generation was aborted through its abort signal. */
export interface RunAbortEvent extends Correlated {
  readonly reason?: unknown;
}

/** The options of `executeLanguageModelCall`: the call runs when `execute` is called. */
export interface ModelCallExecution<T> {
  readonly callId: string;
  readonly execute: () => PromiseLike<T>;
}

/** The options of `executeTool`: the tool's `execute` runs when `execute` is called. */
export interface ToolExecution<T> {
  readonly callId: string;
  readonly toolCallId: string;
  /** The call executed: the object the start and end events of this execution carry too. */
  readonly toolCall?: TelemetryToolCall;
  readonly execute: () => PromiseLike<T>;
}

/**
 * A telemetry integration for `ai` 7 (its `Telemetry` interface): pass it to `registerTelemetry`,
 * or to one call's `telemetry: { integrations }`.
 */
export interface RelaytraceTelemetry {
  /** Counted problems: runs ended by the `maxOpenRuns` bound (`ai_sdk.unended_run_dropped`). */
  diagnostics(): Diagnostic[];
  /** How many runs are open now. */
  openRunCount(): number;
  onStart(event: RunStartEvent): void;
  onLanguageModelCallStart(event: ModelCallStartEvent): void;
  onLanguageModelCallEnd(event: ModelCallEndEvent): void;
  onToolExecutionStart(event: ToolStartEvent): void;
  onToolExecutionEnd(event: ToolEndEvent): void;
  onStepError(event: StepErrorEvent): void;
  onEnd(event: RunEndEvent): void;
  onAbort(event: RunAbortEvent): void;
  /** The SDK passes `{ callId, error }`; typed `unknown` there. */
  onError(event: unknown): void;
  executeLanguageModelCall<T>(options: ModelCallExecution<T>): PromiseLike<T>;
  executeTool<T>(options: ToolExecution<T>): PromiseLike<T>;
}
