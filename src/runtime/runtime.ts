import type { Json } from "../events/json.js";
import type { ScopeHandle } from "../events/scope-stack.js";
import { currentScopeContext, runInScopeContext } from "../events/scope-stack.js";
import type { ExecuteLlmOptions } from "./llm-lifecycle.js";
import { LlmLifecycle } from "./llm-lifecycle.js";
import { executeLlmStream, type ExecuteLlmStreamOptions, type LlmStreamFunction } from "./llm-stream.js";
import type { MetricMeasurement } from "./metric.js";
import {
  END_LLM_OPTIONS,
  END_TOOL_OPTIONS,
  LLM_OPTIONS,
  LLM_STREAM_OPTIONS,
  MARK_OPTIONS,
  METRIC_OPTIONS,
  POP_OPTIONS,
  RUNTIME_OPTIONS,
  SCOPE_OPTIONS,
  TOOL_OPTIONS,
} from "./options.js";
import { captureFrom, contextFromPropagation, traceparentFrom } from "./propagation.js";
import { mergeRunContext, type RunContext } from "../events/run-context.js";
import { checkRunContext } from "./run-context-check.js";
import { recordEvaluation, type Evaluation } from "./evaluation.js";
import { RelaytraceError } from "./errors.js";
import type { CallbackError } from "./publisher.js";
import { RuntimeCore } from "./runtime-core.js";
import { ToolLifecycle } from "./tool-lifecycle.js";
import { RuntimeLifecycle } from "./runtime-lifecycle.js";
import { RuntimeRegistrations } from "./runtime-registrations.js";
import { ScopeLifecycle } from "./scope-lifecycle.js";
import type { ScopeControl } from "./scope-lifecycle.js";

export type { ScopeControl };
import type {
  Diagnostic,
  EndLlmOptions,
  EndToolOptions,
  LlmFunction,
  LlmHandle,
  LlmRequest,
  MarkOptions,
  PopScopeOptions,
  PropagationContext,
  PropagationContextWire,
  Remover,
  RuntimeOptions,
  ScopeOptions,
  ShutdownOptions,
  SubscribeOptions,
  Subscriber,
  ToolExecutionResult,
  ToolFunction,
  ToolHandle,
  ToolOptions,
} from "./types.js";

/**
 * One relaytrace runtime: scopes and marks, managed tool and LLM calls, the registrations it
 * inherits (RuntimeRegistrations), subscribers and the publication pipeline. Telemetry failures
 * are counted in `diagnostics()`, never thrown into the app.
 */
export class Runtime extends RuntimeRegistrations {
  private readonly core: RuntimeCore;
  private readonly scopes: ScopeLifecycle;
  private readonly tools: ToolLifecycle;
  private readonly llms: LlmLifecycle;
  /** Subscribers with their exporters, the barriers, the exit flush and diagnostics. */
  private readonly lifecycle: RuntimeLifecycle;

  constructor(options: RuntimeOptions = {}) {
    RUNTIME_OPTIONS.check(options, "createRuntime");
    const core = new RuntimeCore(options);
    super(core.registries);
    this.core = core;
    this.scopes = new ScopeLifecycle(this.core);
    this.tools = new ToolLifecycle(this.core);
    this.llms = new LlmLifecycle(this.core);
    this.lifecycle = new RuntimeLifecycle(this.core, this);
  }

  get namespace(): string {
    return this.core.namespace;
  }

  // ---- scopes -------------------------------------------------------------------------------

  /** Runs `fn` inside a new scope; the scope always ends (OK on return, ERROR keys on throw). */
  withScope<T>(name: string, fn: (scope: ScopeControl) => T | Promise<T>, options?: ScopeOptions): Promise<T> {
    const bad = SCOPE_OPTIONS.error(options, "withScope");
    if (bad) return Promise.reject(bad); // a Promise API reports bad input as a rejection
    return this.scopes.withScope(name, fn, options);
  }

  /** Opens a scope on the current stack; it must be closed with `popScope`. */
  pushScope(name: string, options?: ScopeOptions): ScopeHandle {
    SCOPE_OPTIONS.check(options, "pushScope");
    return this.scopes.pushScope(name, options);
  }

  /** Closes the scope on top of the current stack; any other handle is an error naming both. */
  popScope(handle: ScopeHandle, options?: PopScopeOptions): void {
    POP_OPTIONS.check(options, "popScope");
    this.scopes.popScope(handle, options);
  }

  /** Emits a point-in-time mark; returns its uuid. */
  mark(name: string, options?: MarkOptions): string {
    MARK_OPTIONS.check(options, "mark");
    return this.scopes.mark(name, options);
  }

  /**
   * Emits a metric mark (`data_schema` `nemo.relay.metric_measurements` v1); every measurement is
   * validated first, so a bad one emits nothing. Trace projections never render metric marks.
   */
  metric(
    name: string,
    measurements: readonly MetricMeasurement[],
    options?: Pick<MarkOptions, "parent" | "metadata" | "timestamp">,
  ): string {
    METRIC_OPTIONS.check(options, "metric");
    return this.scopes.metric(name, measurements, options);
  }

  // ---- tools and LLM calls --------------------------------------------------------------------

  /**
   * Runs `fn` as a managed tool call: guardrails, request intercepts, start event, the
   * execution-intercept chain around `fn`, end event, then pending marks. Resolves with the
   * unsanitized `{result, annotation?}`, typed as `fn`'s result (an execution intercept that
   * replaces the result is trusted to keep that type); rejects with the original error (or the abort reason).
   */
  executeTool<T extends Json = Json>(
    name: string,
    args: Json,
    fn: ToolFunction<T>,
    options?: ToolOptions,
  ): Promise<ToolExecutionResult<T>> {
    const bad = TOOL_OPTIONS.error(options, "executeTool");
    if (bad) return Promise.reject(bad); // a Promise API reports bad input as a rejection
    return this.tools.execute(name, args, fn as ToolFunction, options) as Promise<ToolExecutionResult<T>>;
  }

  /** Starts a tool call by hand (no guardrails or intercepts); end it with `endTool`. */
  startTool(name: string, args: Json, options?: ToolOptions): ToolHandle {
    TOOL_OPTIONS.check(options, "startTool");
    return this.tools.start(name, args, options);
  }

  /** Ends a hand-started tool call with its result (no status keys) or `{error}` (ERROR keys). */
  endTool(handle: ToolHandle, outcome: ToolExecutionResult | { error: unknown }, options?: EndToolOptions): void {
    END_TOOL_OPTIONS.check(options, "endTool");
    this.tools.end(handle, outcome, options);
  }

  /**
   * Runs `fn` as a managed LLM call named after the provider route. Credential headers never reach
   * an event; `fn` gets the real request with a W3C `traceparent` added. Resolves with `fn`'s
   * response, typed as `fn` returns it (`Promise<ChatCompletion>` from an OpenAI SDK call gives a
   * `ChatCompletion`); the `llm` end records a JSON copy of it. `request.content` may be a
   * provider SDK's own request type: the start event records a JSON copy of it.
   */
  executeLlm<T, C = Json>(name: string, request: LlmRequest<C>, fn: LlmFunction<T, C>, options?: ExecuteLlmOptions): Promise<Awaited<T>> {
    const bad = LLM_OPTIONS.error(options, "executeLlm");
    if (bad) return Promise.reject(bad); // a Promise API reports bad input as a rejection
    // The lifecycle handles bodies as JSON: both are copied to JSON where events are published.
    return this.llms.execute(name, request as LlmRequest, fn as unknown as LlmFunction, options) as Promise<Awaited<T>>;
  }

  /**
   * Runs `fn` as a managed, streamed LLM call: `fn` returns the provider's chunks as an async
   * iterable, and so does this method. Guardrails and request intercepts run when iteration
   * starts; each chunk passes the stream execution intercepts; the `llm` end records
   * `time_to_first_chunk_ms` and the response: by default the one a non-streaming call of the
   * dialect (by `dataSchema`, else `name`) records, assembled from the chunks (raw SSE bytes or
   * text, `{event, data}` events, or an SDK's decoded chunks); `options.assemble(chunks)` builds
   * it instead, and `assemble: "chunks"` records the chunks. Stopping early, aborting or a
   * broken stream ends the call with what had been assembled and `relaytrace.stream_incomplete`.
   */
  executeLlmStream<C, B = Json>(
    name: string,
    request: LlmRequest<B>,
    fn: LlmStreamFunction<C, B>,
    options?: ExecuteLlmStreamOptions<C>,
  ): AsyncIterable<C> {
    LLM_STREAM_OPTIONS.check(options, "executeLlmStream");
    return executeLlmStream(this.core, this.llms, name, request as LlmRequest, fn as unknown as LlmStreamFunction<C>, options);
  }

  /** Starts an LLM call by hand; end it with `endLlm`. `request.content` may be an SDK's own request type. */
  startLlm<B = Json>(name: string, request: LlmRequest<B>, options?: ExecuteLlmOptions): LlmHandle {
    LLM_OPTIONS.check(options, "startLlm");
    return this.llms.start(name, request as LlmRequest, options);
  }

  /** Ends a hand-started LLM call with its response (status OK), or with `{ error }` in the options. */
  endLlm(handle: LlmHandle, response: Json, options?: EndLlmOptions & { error?: unknown }): void {
    END_LLM_OPTIONS.check(options, "endLlm");
    this.llms.end(handle, response, options);
  }

  /** Delivers every later event to `callback`. With `exporter`, `forceFlush()` and `shutdown()` reach it too. */
  subscribe(name: string, callback: Subscriber, options: SubscribeOptions = {}): Remover {
    return this.lifecycle.subscribe(name, callback, options);
  }

  // ---- subscribers, barriers, diagnostics, propagation ---------------------------------------------------

  /**
   * Resolves when every event emitted before the call has been delivered to its subscribers (and
   * their returned promises settled). Exporters may still hold the events in their own buffers:
   * `forceFlush()` also drains those.
   */
  flush(): Promise<void> {
    return this.lifecycle.flush();
  }

  /** `flush()`, then every attached exporter's own `forceFlush()`. Never rejects for exporter failures. */
  forceFlush(): Promise<void> {
    return this.lifecycle.forceFlush();
  }

  /**
   * Flushes, then shuts down every exporter attached to this runtime (each: `forceFlush`, then
   * `shutdown`), within ONE overall deadline: `timeoutMs` (default 5,000 ms), whatever the
   * exporters' own timeouts and retries. Past it the call returns and counts `shutdown_timeout`
   * naming the exporters still busy. Safe to call twice (the second call gets the first's promise).
   */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    return this.lifecycle.shutdown(options);
  }

  /**
   * Called on `beforeExit` while exporters are attached and `shutdown()` was never called:
   * `forceFlush()` of every exporter, within the shutdown deadline (default 5 s).
   */
  flushOnExit(): Promise<void> {
    return this.lifecycle.flushOnExit();
  }

  /** Counted problems of the runtime and of the exporters attached to it. */
  diagnostics(): Diagnostic[] {
    return this.lifecycle.diagnostics();
  }

  /** The most recent failure of a sanitizer, injector or subscriber, if any. */
  getLastCallbackError(): CallbackError | undefined {
    return this.core.publisher.lastCallbackError;
  }

  /** Forgets the recorded callback failure. */
  clearLastCallbackError(): void {
    this.core.publisher.lastCallbackError = undefined;
  }

  /** `{ version: 1, rootUuid?, parentUuid }` for continuing this trace elsewhere (`propagationContextToJson` for the wire). */
  capturePropagationContext(): PropagationContext {
    return captureFrom(currentScopeContext());
  }

  /** Runs `fn` so that its scopes continue the trace described by `ctx` (from another process or a resumed run). */
  withPropagation<T>(ctx: PropagationContext | PropagationContextWire, fn: () => T): T {
    return runInScopeContext(contextFromPropagation(ctx), fn);
  }

  /**
   * Runs `fn` so that every scope, tool call, LLM call and mark started inside it (async
   * continuations and nested agents included) carries the session, user, tags and metadata:
   * ATOF `metadata.session_id`, `metadata.user_id`, `metadata.tags` and the entries; the OTel
   * projections' session and user attributes. Nested contexts merge (the inner one wins);
   * concurrent requests never mix. A wrong field is a `RelaytraceError` naming it.
   */
  withContext<T>(context: RunContext, fn: () => T): T {
    const run = checkRunContext(context);
    const outer = currentScopeContext();
    const stack = outer.stack.runCopy(mergeRunContext(outer.stack.run, run));
    return runInScopeContext(outer.activeEventUuid === undefined ? { stack } : { stack, activeEventUuid: outer.activeEventUuid }, fn);
  }

  /**
   * Records a score or label for a run or one of its steps (a judge model's grade, a user's
   * thumbs-down, a CI eval): an ATOF mark `gen_ai.evaluation.result` (data schema
   * `relaytrace.evaluation`) under the target, which the OTel exporter's logs signal sends as the
   * GenAI conventions' evaluation event with the target's trace and span ids, also when the target
   * ended long ago or was recorded elsewhere (`target: { traceId, spanId }`). Returns the mark's
   * uuid; a wrong field is a `RelaytraceError` naming it, and nothing is recorded. After
   * `shutdown()` its exporters are gone: it is refused with a `RelaytraceError` saying so.
   */
  recordEvaluation(evaluation: Evaluation): string {
    if (this.lifecycle.shutDown) {
      throw new RelaytraceError(
        "invalid_argument",
        "recordEvaluation: the runtime is shut down (shutdown() was called), so no exporter would receive the evaluation; " +
          "record it before shutdown(), or on a runtime that is running",
      );
    }
    return recordEvaluation(this.core, evaluation);
  }

  /** The W3C `traceparent` of the current position in the trace. */
  captureTraceparent(): string {
    return traceparentFrom(currentScopeContext());
  }

  /** The scope on top of the current stack (the hidden root when none is open). */
  currentScope(): ScopeHandle {
    return currentScopeContext().stack.top();
  }

  /**
   * Whether an event emitted at the current position would reach a subscriber: work that only
   * recording needs (the agent loop preparing its transcript for events) is skipped otherwise.
   */
  isRecording(): boolean {
    return this.core.listening(currentScopeContext().stack);
  }
}

/** Creates a runtime. */
export function createRuntime(options?: RuntimeOptions): Runtime {
  return new Runtime(options);
}
