import type { Json, JsonObject } from "../../events/json.js";
import { is } from "../../events/option-spec.js";
import { hiddenRoot, withScopeStack, type ScopeStack } from "../../events/scope-stack.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { LlmHandle, ToolHandle } from "../../runtime/types.js";
import { DiagnosticCounter, type Diagnostic } from "../../wire/diagnostics.js";
import { CHAT_COMPLETIONS_SCHEMA, chatCompletionsRequest, chatCompletionsResponse } from "../chat-completions-body.js";
import { closeDetached, openDetached, type DetachedScope } from "../detached-scopes.js";
import { asError } from "../json-text.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { finishReasonOf, telemetryRequest, telemetryResponse, usageOf, userText } from "./telemetry-bodies.js";
import type {
  ModelCallEndEvent,
  ModelCallExecution,
  ModelCallStartEvent,
  RelaytraceTelemetry,
  RunAbortEvent,
  RunEndEvent,
  RunStartEvent,
  StepErrorEvent,
  ToolEndEvent,
  ToolExecution,
  ToolStartEvent,
} from "./telemetry-events.js";
import { RunningTools } from "./telemetry-tools.js";

/** Options of `relaytraceTelemetry`. */
export interface RelaytraceTelemetryOptions extends AdapterOptions {
  /** The `agent` scope's name; default: the call's `telemetry.functionId`, else `ai.generateText` / `ai.streamText`. */
  name?: string;
  /**
   * `false` keeps every prompt, completion, tool argument and tool result out of the events: the
   * scopes, their order, models, tool names and call ids, usage, finish reasons and errors remain.
   * Default `true`.
   */
  captureContent?: boolean;
  /**
   * Most runs held open at once (default 10,000). A run the SDK never ends (a stream nobody reads
   * to the end nor aborts) would otherwise be held forever: past the bound the oldest open run is
   * ended with an error and counted as `ai_sdk.unended_run_dropped` in `diagnostics()`.
   */
  maxOpenRuns?: number;
}

const TELEMETRY_OPTIONS = declareAdapterOptions<RelaytraceTelemetryOptions>("relaytraceTelemetry", {
  name: is.string,
  captureContent: is.boolean,
  maxOpenRuns: is.positiveInteger,
});

const DEFAULT_MAX_OPEN_RUNS = 10_000;

/** The operations that are one agent run; embeddings, object generation and the rest are not traced. */
const RUN_OPERATIONS: ReadonlySet<string> = new Set(["ai.generateText", "ai.streamText"]);

/** A tool end sets no status of its own; a tool the SDK ran without error is OK. */
const OK_STATUS: JsonObject = { "otel.status_code": "OK" };

/** One generation in flight: its agent scope, the model call open now, and the tools running. */
interface Run {
  readonly runtime: Runtime;
  readonly agent: DetachedScope;
  readonly stream: boolean;
  llm: LlmHandle | undefined;
  readonly tools: RunningTools;
}

/** The time the SDK says an event happened (a durable run reports its events later), else none: now. */
function at(event: unknown): { timestamp?: Date } {
  const ms = event !== null && typeof event === "object" ? (event as { timestamp?: unknown }).timestamp : undefined;
  return typeof ms === "number" && Number.isFinite(ms) && ms >= 0 ? { timestamp: new Date(ms) } : {};
}

/** Runs `fn`, swallowing what it throws: telemetry never throws into the SDK or the app. */
function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // A failure of telemetry is never the app's failure.
  }
}

/** A copy of the agent's stack with `handle` on top: code run on it nests under that scope. */
function stackUnder(run: Run, handle: LlmHandle | ToolHandle, category: string): ScopeStack {
  const stack = run.agent.stack.snapshot();
  stack.push(hiddenRoot(handle.uuid, handle.name, category, handle.parentUuid));
  return stack;
}

/** The runs in flight of one integration, and what each SDK callback does to them. */
class TelemetryRuns {
  private readonly runs = new Map<string, Run>();
  private readonly captureContent: boolean;
  private readonly maxOpenRuns: number;
  readonly counter = new DiagnosticCounter();

  constructor(private readonly options: RelaytraceTelemetryOptions) {
    this.captureContent = options.captureContent !== false;
    this.maxOpenRuns = options.maxOpenRuns ?? DEFAULT_MAX_OPEN_RUNS;
  }

  openRunCount(): number {
    return this.runs.size;
  }

  private content(value: () => Json): Json {
    return this.captureContent ? value() : null;
  }

  /** Ends the open model call and tools of a run with `error`, then its agent scope. */
  finish(callId: string, when: { timestamp?: Date }, error: unknown, output: Json | undefined, metadata?: JsonObject): void {
    const run = this.runs.get(callId);
    if (run === undefined) return;
    this.runs.delete(callId);
    withScopeStack(run.agent.stack, () => {
      const failure = error ?? new Error("the run ended before this call did");
      if (run.llm !== undefined) guard(() => run.runtime.endLlm(run.llm!, null, { error: failure, ...when }));
      for (const tool of run.tools.drain()) guard(() => run.runtime.endTool(tool, { error: asError(failure) }, when));
    });
    run.llm = undefined;
    closeDetached(run.runtime, run.agent, {
      ...when,
      ...(error !== undefined ? { error } : {}),
      ...(output !== undefined ? { output } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }

  /** The model call of a run ends with `error` (a failed or cancelled step); the run goes on or ends. */
  failLlm(run: Run, error: unknown, when: { timestamp?: Date }): void {
    const llm = run.llm;
    if (llm === undefined) return;
    run.llm = undefined;
    withScopeStack(run.agent.stack, () => run.runtime.endLlm(llm, null, { error, ...when }));
  }

  runOf(callId: string): Run | undefined {
    return this.runs.get(callId);
  }

  onStart(event: RunStartEvent): void {
    if (typeof event.callId !== "string" || !RUN_OPERATIONS.has(event.operationId) || this.runs.has(event.callId)) return;
    const runtime = runtimeOf(this.options);
    const stream = event.operationId === "ai.streamText";
    const metadata: JsonObject = { "ai.operation.id": event.operationId };
    if (typeof event.provider === "string") metadata["gen_ai.provider.name"] = event.provider;
    if (typeof event.modelId === "string") metadata["gen_ai.request.model"] = event.modelId;
    if (typeof event.functionId === "string") metadata["ai.telemetry.function_id"] = event.functionId;
    const agent = openDetached(runtime, this.options.name ?? event.functionId ?? event.operationId, {
      category: "agent",
      input: this.content(() => userText(event.messages) ?? null),
      metadata,
      ...(stream ? { attributes: ["streaming"] } : {}),
      ...at(event),
    });
    this.runs.set(event.callId, { runtime, agent, stream, llm: undefined, tools: new RunningTools() });
    if (this.runs.size > this.maxOpenRuns) this.endOldest();
  }

  /** Ends the oldest open run: a run the SDK never ends must not be held forever. */
  private endOldest(): void {
    const [callId, run] = this.runs.entries().next().value!;
    this.counter.record(
      "ai_sdk.unended_run_dropped",
      `more than ${this.maxOpenRuns} runs open: ${run.agent.handle.name} (${callId}) was ended before the SDK ended it`,
    );
    this.finish(callId, {}, new Error(`relaytrace ended it: more than ${this.maxOpenRuns} runs were open`), undefined);
  }

  onLanguageModelCallStart(event: ModelCallStartEvent): void {
    const run = this.runs.get(event.callId);
    if (run === undefined || typeof event.provider !== "string") return;
    if (run.llm !== undefined) this.failLlm(run, new Error("a new model call started before this one ended"), at(event));
    const request = telemetryRequest(event, run.stream, this.captureContent);
    run.llm = withScopeStack(run.agent.stack, () =>
      run.runtime.startLlm(
        event.provider,
        { content: chatCompletionsRequest(request) },
        {
          parent: { uuid: run.agent.handle.uuid },
          modelName: event.modelId,
          dataSchema: CHAT_COMPLETIONS_SCHEMA,
          metadata: { "gen_ai.provider.name": event.provider },
          ...(run.stream ? { attributes: ["streaming"] } : {}),
          ...at(event),
        },
      ),
    );
  }

  onLanguageModelCallEnd(event: ModelCallEndEvent): void {
    const run = this.runs.get(event.callId);
    const llm = run?.llm;
    if (run === undefined || llm === undefined) return;
    run.llm = undefined;
    const firstChunk = event.performance?.timeToFirstOutputMs;
    const metadata: JsonObject | undefined = typeof firstChunk === "number" ? { time_to_first_chunk_ms: firstChunk } : undefined;
    const response = chatCompletionsResponse(telemetryResponse(event, this.captureContent));
    // A provider's error chunk does not fail the step: it finishes with the reason "error".
    const failed = event.finishReason === "error" ? { error: new Error("the model call finished with an error"), data: response } : {};
    withScopeStack(run.agent.stack, () =>
      run.runtime.endLlm(llm, response, { ...(metadata !== undefined ? { metadata } : {}), ...failed, ...at(event) }),
    );
  }

  onToolExecutionStart(event: ToolStartEvent): void {
    const run = this.runs.get(event.callId);
    if (run === undefined) return;
    const call = event.toolCall;
    const handle = withScopeStack(run.agent.stack, () =>
      run.runtime.startTool(
        call.toolName,
        this.content(() => toJsonSafe(call.input ?? null)),
        { parent: { uuid: run.agent.handle.uuid }, toolCallId: call.toolCallId, ...at(event) },
      ),
    );
    run.tools.add(call, call.toolCallId, handle);
  }

  onToolExecutionEnd(event: ToolEndEvent): void {
    const run = this.runs.get(event.callId);
    const handle = run?.tools.take(event.toolCall, event.toolCall.toolCallId);
    if (run === undefined || handle === undefined) return;
    const outcome = event.toolOutput;
    withScopeStack(run.agent.stack, () => {
      if (outcome.type === "tool-error") {
        const error = asError(outcome.error);
        run.runtime.endTool(handle, { error }, { data: this.content(() => error.message), ...at(event) });
      } else {
        run.runtime.endTool(
          handle,
          { result: this.content(() => toJsonSafe(outcome.output ?? null)) },
          { metadata: OK_STATUS, ...at(event) },
        );
      }
    });
  }

  onEnd(event: RunEndEvent): void {
    if (typeof event.callId !== "string" || !this.runs.has(event.callId)) return;
    const metadata: JsonObject = {};
    const finishReason = finishReasonOf(event.finishReason);
    if (finishReason !== undefined) metadata["ai.finish_reason"] = finishReason;
    const usage = usageOf(event.usage as Parameters<typeof usageOf>[0]);
    if (usage?.inputTokens !== undefined) metadata["ai.usage.input_tokens"] = usage.inputTokens;
    if (usage?.outputTokens !== undefined) metadata["ai.usage.output_tokens"] = usage.outputTokens;
    this.finish(
      event.callId,
      at(event),
      event.finishReason === "error" ? new Error("the run finished with an error") : undefined,
      this.content(() => (typeof event.text === "string" ? event.text : null)),
      metadata,
    );
  }

  onError(event: unknown): void {
    if (event === null || typeof event !== "object") return;
    const { callId, error } = event as { callId?: unknown; error?: unknown };
    if (typeof callId === "string") this.finish(callId, at(event), error ?? new Error("the run failed"), undefined);
  }

  /** The stack code run for `callId`'s model call nests on: under its `llm` scope. */
  modelCallStack(callId: string): Nesting | undefined {
    const run = this.runs.get(callId);
    return run?.llm === undefined ? undefined : { stack: stackUnder(run, run.llm, "llm") };
  }

  /** The stack a tool's code nests on (under its execution's `tool` scope), and what to say when it returns. */
  toolStack(execution: ToolExecution<unknown>): Nesting | undefined {
    const run = this.runs.get(execution.callId);
    const handle = run?.tools.claim(execution.toolCall, execution.toolCallId);
    if (run === undefined || handle === undefined) return undefined;
    return { stack: stackUnder(run, handle, "tool"), settled: () => run.tools.settled(execution.toolCallId, handle) };
  }
}

/** Where code run for the SDK nests, and what to call once it has returned or thrown. */
interface Nesting {
  stack: ScopeStack;
  settled?: () => void;
}

/** `fn()` on the stack `find` gives (never throwing), else as it is. */
async function nestedOn<T>(find: () => Nesting | undefined, fn: () => PromiseLike<T> | T): Promise<T> {
  let nesting: Nesting | undefined;
  guard(() => {
    nesting = find();
  });
  if (nesting === undefined) return await fn();
  try {
    return await withScopeStack(nesting.stack, fn);
  } finally {
    if (nesting.settled) guard(nesting.settled);
  }
}

/**
 * A telemetry integration for `ai` 7: `registerTelemetry(relaytraceTelemetry({ runtime }))`, or
 * per call in `telemetry: { integrations: [relaytraceTelemetry({ runtime })] }`. Every
 * `generateText` and `streamText` run — and so every `ToolLoopAgent` run — becomes one `agent`
 * scope under the scope the app is in, holding one `llm` scope per model call (Chat Completions
 * request and reply, usage, finish reason) and one `tool` scope per tool execution (its call id),
 * in the order the SDK ran them. Errors end their scopes with the error; a streamed run ends when
 * its stream ends, fails or is aborted (a low-memory stream also when the app cancels it). Times
 * are the SDK's own when it gives them (a durable run). Code a tool runs nests under its `tool` scope.
 */
export function relaytraceTelemetry(options: RelaytraceTelemetryOptions = {}): RelaytraceTelemetry {
  TELEMETRY_OPTIONS.check(options);
  const runs = new TelemetryRuns(options);
  return {
    diagnostics: (): Diagnostic[] => runs.counter.list(),
    openRunCount: (): number => runs.openRunCount(),
    onStart: (event: RunStartEvent) => guard(() => runs.onStart(event)),
    onLanguageModelCallStart: (event: ModelCallStartEvent) => guard(() => runs.onLanguageModelCallStart(event)),
    onLanguageModelCallEnd: (event: ModelCallEndEvent) => guard(() => runs.onLanguageModelCallEnd(event)),
    onToolExecutionStart: (event: ToolStartEvent) => guard(() => runs.onToolExecutionStart(event)),
    onToolExecutionEnd: (event: ToolEndEvent) => guard(() => runs.onToolExecutionEnd(event)),
    onStepError: (event: StepErrorEvent) =>
      guard(() => {
        const run = runs.runOf(event.callId);
        if (run !== undefined) runs.failLlm(run, event.error, at(event));
      }),
    onEnd: (event: RunEndEvent) => guard(() => runs.onEnd(event)),
    onAbort: (event: RunAbortEvent) =>
      guard(() => runs.finish(event.callId, at(event), event.reason ?? new Error("the run was aborted"), undefined)),
    onError: (event: unknown) => guard(() => runs.onError(event)),
    // The provider request and a tool's code run under their scopes: HTTP instrumentation and nested scopes land there.
    executeLanguageModelCall: <T>(call: ModelCallExecution<T>): Promise<T> =>
      nestedOn(
        () => runs.modelCallStack(call.callId),
        () => call.execute(),
      ),
    executeTool: <T>(execution: ToolExecution<T>): Promise<T> =>
      nestedOn(
        () => runs.toolStack(execution),
        () => execution.execute(),
      ),
  };
}
