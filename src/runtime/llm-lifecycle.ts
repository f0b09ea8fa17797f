import { PROFILE_MODEL_NAME, PROFILE_PROMPT } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { otelPropagatesTraceparent, runInSpan, spanContextOf, traceRootUuid } from "./otel-context.js";
import { DEFAULT_HEADER_POLICY, type HeaderPolicy } from "../wire/credentials.js";
import { signalForCall } from "./abort.js";
import { endDataOf } from "./errors.js";
import { cancelledMetadata, errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import { priceCall, type CallToPrice, type PricedCall } from "./llm-cost.js";
import { preparePriceTable } from "../wire/price-table-loader.js";
import { promptProfile } from "./prompt.js";
import { placeCall, placeCallOn, runCall, type Call, type CallPlace } from "./call.js";
import { chainIntercepts } from "./intercept-chain.js";
import type { RegistryEntry } from "./registry.js";
import { traceFlagsIn, traceparentOf } from "./propagation.js";
import type { LlmGuardrail, LlmRequestIntercept, RuntimeCore, ScopeShape } from "./runtime-core.js";
import type { EndLlmOptions, LlmFunction, LlmHandle, LlmOptions, LlmRequest } from "./types.js";

/**
 * The event-only copy of a request: header values outside the policy's allow-list become
 * `[redacted]` (names kept). The real request is never modified.
 */
export function recordableRequest(
  request: LlmRequest,
  policy: HeaderPolicy = DEFAULT_HEADER_POLICY,
): { headers: JsonObject; content: Json } {
  return { headers: policy.recordable(request.headers ?? {}) as JsonObject, content: request.content };
}

export interface InternalLlmHandle extends LlmHandle {
  ended: boolean;
  /** A manual call's stack when it continues an app's OTel span (its end then carries that trace). */
  linkedStack?: ScopeStack;
  /** The checked `prompt` option, recorded on the start event's profile. */
  prompt?: JsonObject;
}

export interface ExecuteLlmOptions extends LlmOptions {
  /**
   * Set a W3C `traceparent` header on the real request (default true; left to OpenTelemetry when the app registered a
   * propagator that writes it, whose client instrumentation injects its own).
   */
  injectTraceparent?: boolean;
}

function llmProfile(modelName: string | undefined): JsonObject | null {
  return modelName === undefined ? {} : { [PROFILE_MODEL_NAME]: modelName };
}

/** Managed and manual LLM lifecycles. */
export class LlmLifecycle {
  readonly registries: RuntimeCore["registries"];

  constructor(private readonly core: RuntimeCore) {
    this.registries = core.registries;
  }

  execute(name: string, request: LlmRequest, fn: LlmFunction, options: ExecuteLlmOptions = {}): Promise<Json> {
    return runCall<LlmRequest, InternalLlmHandle, Json>(this.core, new LlmCall(this, currentScopeContext(), name, request, fn, options));
  }

  /**
   * The real request with a W3C `traceparent` for this call (replacing any, whatever its case)
   * and the trace's `tracestate` when the incoming context had one (it replaces the request's),
   * unless disabled or left to a registered OpenTelemetry propagator.
   */
  withTraceparent(context: ScopeContext, handle: LlmHandle, request: LlmRequest, options: ExecuteLlmOptions): LlmRequest {
    if (options.injectTraceparent === false || otelPropagatesTraceparent()) return request;
    const root = traceRootUuid(context, handle) ?? handle.uuid;
    // The state of the caller's trace: the remote parent's or the active OTel span's, as on the spans.
    const tracestate = spanContextOf(context, handle).traceState?.serialize();
    const headers: Record<string, Json> = {};
    for (const [k, v] of Object.entries(request.headers ?? {})) {
      const name = k.toLowerCase();
      if (name !== "traceparent" && !(tracestate && name === "tracestate")) headers[k] = v;
    }
    headers.traceparent = traceparentOf(root, handle.uuid, traceFlagsIn(context, root));
    if (tracestate) headers.tracestate = tracestate;
    return { ...request, headers };
  }

  start(name: string, request: LlmRequest, options: LlmOptions = {}): LlmHandle {
    const place = placeCall(currentScopeContext(), options.parent);
    const handle = this.open(place, name, request, options);
    if (place.inbound !== undefined) handle.linkedStack = place.stack;
    return handle;
  }

  end(handle: LlmHandle, response: Json, options: EndLlmOptions & { error?: unknown } = {}): void {
    const internal = handle as InternalLlmHandle;
    if (internal.ended) {
      this.core.diagnostics.record("llm.already_ended", `llm ${handle.name} (${handle.uuid}) ended twice; second end ignored`);
      return;
    }
    const stack = internal.linkedStack ?? currentScopeContext().stack;
    if (options.error !== undefined) {
      internal.ended = true;
      this.core.emitScope(stack, scopeOf(internal), "end", this.core.endTime(internal.startedAtUs, options.timestamp), {
        data: options.data ?? null,
        metadata: errorMetadata(shallowMerge(internal.metadata, options.metadata), options.error),
        profile: llmProfile(options.modelName ?? internal.modelName),
        dataSchema: internal.dataSchema ?? null,
      });
      return;
    }
    this.close(stack, internal, response, options);
  }

  /**
   * A failed managed end: the error keys, or the LLM cancellation message when the signal aborted.
   * `partial` is what a broken stream had delivered; it passes the response sanitizers like any reply.
   */
  fail(stack: ScopeStack, handle: InternalLlmHandle, error: unknown, cancelled: boolean, extra?: JsonObject, partial?: Json): void {
    if (handle.ended) return;
    handle.ended = true;
    const base = extra === undefined ? handle.metadata : shallowMerge(handle.metadata, extra);
    // A cut stream's partial reply, else what the provider said when it failed (status and body).
    const data = partial ?? (cancelled ? null : (endDataOf(error) ?? null));
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "end",
      this.core.endTime(handle.startedAtUs, undefined),
      {
        data,
        metadata: cancelled ? cancelledMetadata(base, "llm") : errorMetadata(base, error),
        profile: llmProfile(handle.modelName),
        dataSchema: handle.dataSchema ?? null,
      },
      data === null ? undefined : this.payloadTransform(stack, "response", undefined, handle.name),
    );
  }

  /** Creates the handle and emits the start (the request as the call records it). */
  open(place: CallPlace, name: string, request: LlmRequest, options: LlmOptions): InternalLlmHandle {
    const { stack, parentUuid } = place;
    const startedAtUs = this.core.startTime(options.timestamp);
    const handle: InternalLlmHandle = {
      uuid: this.core.idFor(startedAtUs, options.timestamp),
      name,
      parentUuid,
      startedAtUs,
      attributes: normalizeAttributes(options.attributes),
      metadata: options.metadata ?? null,
      ended: false,
      ...(options.modelName !== undefined ? { modelName: options.modelName } : {}),
      ...(options.dataSchema !== undefined ? { dataSchema: options.dataSchema } : {}),
    };
    if (options.prompt !== undefined) handle.prompt = promptProfile(options.prompt);
    if (!this.core.listening(stack)) return handle; // nothing subscribed: build no event
    // A Worker's table comes by import(): started now, it has loaded when the reply arrives.
    if (this.core.pricing !== undefined) preparePriceTable();
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "start",
      handle.startedAtUs,
      {
        data: recordableRequest(request, this.core.headerPolicy),
        metadata: handle.metadata,
        profile:
          handle.prompt === undefined ? llmProfile(handle.modelName) : { ...llmProfile(handle.modelName), [PROFILE_PROMPT]: handle.prompt },
        dataSchema: handle.dataSchema ?? null,
      },
      this.payloadTransform(stack, "request", undefined, handle.name),
    );
    return handle;
  }

  close(stack: ScopeStack, handle: InternalLlmHandle, response: Json, options: EndLlmOptions): void {
    handle.ended = true;
    const endUs = this.core.endTime(handle.startedAtUs, options.timestamp);
    if (!this.core.listening(stack)) return;
    const priced = this.priced(stack, handle, response, options);
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "end",
      endUs,
      {
        data: response,
        metadata: okMetadata(shallowMerge(handle.metadata, options.metadata)),
        profile: priced.profile,
        dataSchema: handle.dataSchema ?? null,
      },
      this.payloadTransform(stack, "response", options.data, handle.name),
    );
  }

  /** The end profile, priced from the raw reply (before the sanitizers run), and the call counted in the roll-ups. */
  private priced(stack: ScopeStack, handle: InternalLlmHandle, response: Json, options: EndLlmOptions): PricedCall {
    const modelName = options.modelName ?? handle.modelName;
    const profile = llmProfile(modelName);
    const setup = this.core.pricing;
    if (setup === undefined) return { profile };
    const call: CallToPrice = { name: handle.name, startedAtUs: handle.startedAtUs, metadata: handle.metadata };
    if (handle.dataSchema !== undefined) call.dataSchema = handle.dataSchema;
    if (modelName !== undefined) call.modelName = modelName;
    let priced: PricedCall;
    try {
      priced = priceCall(profile, setup, call, response, this.core.diagnostics);
    } catch (error) {
      // Telemetry never breaks the app: a reply pricing cannot read is recorded without a cost.
      this.core.diagnostics.recordError("llm.unpriced_usage", error);
      priced = { profile };
    }
    this.core.llmTotals?.ended(handle.parentUuid, stack, priced.cost, priced.usage);
    return priced;
  }

  private payloadTransform(stack: ScopeStack, which: "request" | "response", fallback: Json | undefined, name: string) {
    const registry = which === "request" ? this.core.registries.llmSanitizeRequest : this.core.registries.llmSanitizeResponse;
    return this.core.payloadTransform(registry.effective(stack), `llm_sanitize_${which}`, fallback, `${name} data`);
  }
}

/**
 * One LLM call as the call skeleton drives it: `executeLlm` runs it with `runCall`; a managed
 * stream opens it with `openCall` and then drives the execution itself, chunk by chunk.
 */
export class LlmCall<F = LlmFunction> implements Call<LlmRequest, InternalLlmHandle, Json> {
  readonly kind = "llm";
  stack!: ScopeStack;
  parentUuid!: string;
  inbound: CallPlace["inbound"];
  readonly metadata: Json;
  readonly signal: AbortSignal | undefined;
  readonly guardrails: readonly RegistryEntry<LlmGuardrail>[];
  readonly requestIntercepts: readonly RegistryEntry<LlmRequestIntercept>[];

  constructor(
    private readonly llms: LlmLifecycle,
    context: ScopeContext,
    readonly name: string,
    readonly input: LlmRequest,
    readonly fn: F,
    readonly options: ExecuteLlmOptions,
  ) {
    // Under an app's OTel span the call carries that span's trace: its events, children and traceparent.
    placeCallOn(this, context, options.parent);
    const regs = llms.registries;
    this.metadata = options.metadata ?? null;
    this.signal = options.signal;
    this.guardrails = regs.llmGuardrails.effective(this.stack);
    this.requestIntercepts = regs.llmRequestIntercepts.effective(this.stack);
  }

  /** The start records the intercepted request, taken before traceparent injection. */
  open(input: LlmRequest): InternalLlmHandle {
    return this.llms.open(this, this.name, input, this.options);
  }

  /** The context the execution runs in: a snapshot of the call's stack with this call active. */
  execution(handle: LlmHandle): ScopeContext {
    return { stack: this.stack.snapshot(), activeEventUuid: handle.uuid };
  }

  run(handle: InternalLlmHandle, input: LlmRequest): Promise<Json> {
    const context = this.execution(handle);
    const fn = this.fn as LlmFunction;
    const signal = signalForCall(this.signal);
    const info = llmInfo(this.name, handle);
    const chain = chainIntercepts(
      this.llms.registries.llmExecutionIntercepts.effective(context.stack),
      async (req: LlmRequest): Promise<Json> => fn(req, { signal, llmUuid: handle.uuid }),
      (intercept, req, next) => Promise.resolve(intercept.callback(req, next, info)),
    );
    const real = this.llms.withTraceparent(context, handle, input, this.options);
    return runInSpan(context, handle, () => chain(real));
  }

  close(handle: InternalLlmHandle, response: Json): void {
    this.llms.close(this.stack, handle, response, {});
  }

  fail(handle: InternalLlmHandle, error: unknown, cancelled: boolean, endData?: Json): void {
    this.llms.fail(this.stack, handle, error, cancelled, undefined, endData);
  }

  /** A stream's failed end: its timing metadata, and the partial reply a cut stream delivered. */
  failStream(handle: InternalLlmHandle, error: unknown, cancelled: boolean, extra: JsonObject, partial: Json | undefined): void {
    this.llms.fail(this.stack, handle, error, cancelled, extra, partial);
  }
}

/** What an LLM execution or stream intercept is told about the call. */
export function llmInfo(name: string, handle: LlmHandle): { name: string; llmUuid: string; modelName?: string } {
  return handle.modelName === undefined ? { name, llmUuid: handle.uuid } : { name, llmUuid: handle.uuid, modelName: handle.modelName };
}

function scopeOf(handle: LlmHandle): ScopeShape {
  return { uuid: handle.uuid, name: handle.name, category: "llm", parentUuid: handle.parentUuid, attributes: handle.attributes };
}
