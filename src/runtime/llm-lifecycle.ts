import { PROFILE_MODEL_NAME, PROFILE_PROMPT } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { inboundOtelParent, inboundStack, otelPropagatesTraceparent, runInSpan, spanContextOf, traceRootUuid } from "./otel-context.js";
import { DEFAULT_HEADER_POLICY, type HeaderPolicy } from "../wire/credentials.js";
import { neverAborted } from "./abort.js";
import { failureDataOf } from "./failure-data.js";
import { cancelledMetadata, errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import { pricedProfile } from "./llm-cost.js";
import { promptProfile } from "./prompt.js";
import type { ManagedCall } from "./managed-call.js";
import { runManagedCall } from "./managed-call.js";
import { traceFlagsIn, traceparentOf } from "./propagation.js";
import type { RuntimeCore, ScopeShape } from "./runtime-core.js";
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
  constructor(private readonly core: RuntimeCore) {}

  execute(name: string, request: LlmRequest, fn: LlmFunction, options: ExecuteLlmOptions = {}): Promise<Json> {
    const base = this.managedCall(name, request, options);
    return runManagedCall<LlmRequest, InternalLlmHandle, Json>(this.core, {
      ...base,
      run: (handle, realRequest) => {
        const { context, signal } = this.execution(base.stack, handle, options);
        const intercepts = this.core.registries.llmExecutionIntercepts.effective(context.stack);
        let call = async (req: LlmRequest): Promise<Json> => fn(req, { signal, llmUuid: handle.uuid });
        const info = { name, llmUuid: handle.uuid, ...(handle.modelName !== undefined ? { modelName: handle.modelName } : {}) };
        for (let i = intercepts.length - 1; i >= 0; i--) {
          const intercept = intercepts[i]!;
          const downstream = call;
          call = async (req) => intercept.callback(req, downstream, info);
        }
        const real = this.withTraceparent(context, handle, realRequest, options);
        return runInSpan(context, handle, () => call(real));
      },
      close: (handle, response) => this.close(base.stack, handle, response, {}),
    });
  }

  /**
   * The parts of a managed LLM call the skeleton needs, shared by `execute` and managed streams:
   * the guardrail and request-intercept stages, the opening, and the failed end.
   */
  managedCall(
    name: string,
    request: LlmRequest,
    options: ExecuteLlmOptions & { attributes?: string[] },
  ): Omit<ManagedCall<LlmRequest, InternalLlmHandle, never>, "run" | "close"> {
    const context = currentScopeContext();
    const inbound = options.parent === undefined ? inboundOtelParent(context) : undefined;
    // Under an app's OTel span the call carries that span's trace: its events, children and traceparent.
    const stack = inboundStack(context.stack, inbound);
    const regs = this.core.registries;
    const parentUuid = options.parent?.uuid ?? inbound?.link.parentUuid ?? stack.top().uuid;
    return {
      kind: "llm",
      name,
      input: request,
      stack,
      parentUuid,
      metadata: options.metadata ?? null,
      signal: options.signal ?? neverAborted(),
      guardrails: regs.llmGuardrails.effective(stack),
      requestIntercepts: regs.llmRequestIntercepts.effective(stack),
      // The start records the intercepted request, taken before traceparent injection.
      open: (realRequest) => this.open(stack, name, realRequest, options, parentUuid),
      fail: (handle, error, cancelled) => this.fail(stack, handle, error, cancelled),
    };
  }

  /** The context a managed call's execution runs in: a snapshot of the call's stack with this call active. */
  execution(stack: ScopeStack, handle: LlmHandle, options: LlmOptions): { context: ScopeContext; signal: AbortSignal } {
    const context: ScopeContext = { stack: stack.snapshot(), activeEventUuid: handle.uuid };
    return { context, signal: options.signal ?? neverAborted() };
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
    const stack = currentScopeContext().stack;
    return this.open(stack, name, request, options, options.parent?.uuid ?? stack.top().uuid);
  }

  end(handle: LlmHandle, response: Json, options: EndLlmOptions & { error?: unknown } = {}): void {
    const internal = handle as InternalLlmHandle;
    if (internal.ended) {
      this.core.diagnostics.record("llm.already_ended", `llm ${handle.name} (${handle.uuid}) ended twice; second end ignored`);
      return;
    }
    const stack = currentScopeContext().stack;
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
    const data = partial ?? (cancelled ? null : (failureDataOf(error) ?? null));
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

  private open(stack: ScopeStack, name: string, request: LlmRequest, options: LlmOptions, parentUuid: string): InternalLlmHandle {
    const handle: InternalLlmHandle = {
      uuid: this.core.newId(),
      name,
      parentUuid,
      startedAtUs: this.core.startTime(options.timestamp),
      attributes: normalizeAttributes(options.attributes),
      metadata: options.metadata ?? null,
      ended: false,
      ...(options.modelName !== undefined ? { modelName: options.modelName } : {}),
      ...(options.dataSchema !== undefined ? { dataSchema: options.dataSchema } : {}),
    };
    if (options.prompt !== undefined) handle.prompt = promptProfile(options.prompt);
    if (!this.core.listening(stack)) return handle; // nothing subscribed: build no event
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
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "end",
      endUs,
      {
        data: response,
        metadata: okMetadata(shallowMerge(handle.metadata, options.metadata)),
        profile: pricedProfile(llmProfile(options.modelName ?? handle.modelName), this.core.pricing, handle, response, (model) =>
          this.core.diagnostics.record("llm.unpriced_model", `no price for model ${model} in the pricing catalog; the call has no cost`),
        ),
        dataSchema: handle.dataSchema ?? null,
      },
      this.payloadTransform(stack, "response", options.data, handle.name),
    );
  }

  private payloadTransform(stack: ScopeStack, which: "request" | "response", fallback: Json | undefined, name: string) {
    const registry = which === "request" ? this.core.registries.llmSanitizeRequest : this.core.registries.llmSanitizeResponse;
    return this.core.payloadTransform(registry.effective(stack), `llm_sanitize_${which}`, fallback, `${name} data`);
  }
}

function scopeOf(handle: LlmHandle): ScopeShape {
  return { uuid: handle.uuid, name: handle.name, category: "llm", parentUuid: handle.parentUuid, attributes: handle.attributes };
}
