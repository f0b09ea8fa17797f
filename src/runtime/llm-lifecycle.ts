import { PROFILE_MODEL_NAME } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { spanIdOf, uuidHex } from "../events/uuid.js";
import { DEFAULT_HEADER_POLICY, type HeaderPolicy } from "../wire/credentials.js";
import { inboundOtelParent, otelPropagatesTraceparent, runInSpan, traceRootUuid } from "./otel-context.js";
import { CANCELLED, NEVER_ABORTED, raceAbort } from "./abort.js";
import { GuardrailRejectedError } from "./errors.js";
import { cancelledMetadata, errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import { pricedProfile } from "./llm-cost.js";
import type { RuntimeCore, ScopeShape } from "./runtime-core.js";
import type { EndLlmOptions, LlmFunction, LlmHandle, LlmOptions, LlmRequest } from "./types.js";

/**
 * The event-only copy of a request: header values outside the policy's allow-list become
 * `[redacted]` (names kept). The real request is never modified.
 */
export function recordableRequest(request: LlmRequest, policy: HeaderPolicy = DEFAULT_HEADER_POLICY): { headers: JsonObject; content: Json } {
  return { headers: policy.recordable(request.headers ?? {}) as JsonObject, content: request.content };
}

interface InternalLlmHandle extends LlmHandle {
  ended: boolean;
}

export interface ExecuteLlmOptions extends LlmOptions {
  /** Set a W3C `traceparent` header on the real request (default true; left to OpenTelemetry when the app registered a propagator that writes it, whose client instrumentation injects its own). */
  injectTraceparent?: boolean;
}

function llmProfile(modelName: string | undefined): JsonObject | null {
  return modelName === undefined ? {} : { [PROFILE_MODEL_NAME]: modelName };
}

/** Managed and manual LLM lifecycles. */
export class LlmLifecycle {
  constructor(private readonly core: RuntimeCore) {}

  async execute(name: string, request: LlmRequest, fn: LlmFunction, options: ExecuteLlmOptions = {}): Promise<Json> {
    const context = currentScopeContext();
    const stack = context.stack;
    const parentUuid = options.parent?.uuid ?? inboundOtelParent(context)?.parentUuid ?? stack.top().uuid;
    const regs = this.core.registries;

    for (const guardrail of regs.llmGuardrails.effective(stack)) {
      const reason = await guardrail.callback(name, request);
      if (typeof reason === "string") {
        this.core.emitMark(stack, {
          uuid: this.core.newId(),
          parentUuid,
          timestampUs: this.core.nowUs(),
          name,
          category: null,
          profile: null,
          data: { rejected: true, rejection_reason: reason },
          dataSchema: null,
          metadata: options.metadata ?? null,
        });
        throw new GuardrailRejectedError(guardrail.name, reason);
      }
    }
    let realRequest = request;
    for (const intercept of regs.llmRequestIntercepts.effective(stack)) {
      realRequest = await intercept.callback(name, realRequest);
      if (intercept.breakChain) break;
    }

    const handle = this.open(stack, name, realRequest, options, parentUuid);
    if (options.injectTraceparent !== false && !otelPropagatesTraceparent()) {
      const root = traceRootUuid(context, handle) ?? handle.uuid;
      const headers: Record<string, Json> = {};
      for (const [k, v] of Object.entries(realRequest.headers ?? {})) if (k.toLowerCase() !== "traceparent") headers[k] = v;
      headers.traceparent = `00-${uuidHex(root)}-${spanIdOf(handle.uuid)}-01`;
      realRequest = { ...realRequest, headers };
    }
    const signal = options.signal ?? NEVER_ABORTED;
    const execContext: ScopeContext = {
      stack: stack.snapshot(),
      activeEventUuid: handle.uuid,
      ...(context.propagatedRootUuid !== undefined ? { propagatedRootUuid: context.propagatedRootUuid } : {}),
    };
    const intercepts = regs.llmExecutionIntercepts.effective(stack);
    let call = async (req: LlmRequest): Promise<Json> => fn(req, { signal, llmUuid: handle.uuid });
    for (let i = intercepts.length - 1; i >= 0; i--) {
      const intercept = intercepts[i]!;
      const downstream = call;
      const info = { name, llmUuid: handle.uuid, ...(handle.modelName !== undefined ? { modelName: handle.modelName } : {}) };
      call = async (req) => intercept.callback(req, downstream, info);
    }

    let response: Json;
    try {
      if (signal.aborted) throw CANCELLED;
      const request0 = realRequest;
      response = await raceAbort(runInSpan(execContext, handle, () => call(request0)), signal);
    } catch (error) {
      handle.ended = true;
      const cancelled = error === CANCELLED;
      this.core.emitScope(stack, scopeOf(handle), "end", this.core.endTime(handle.startedAtUs, undefined), {
        data: null,
        metadata: cancelled ? cancelledMetadata(handle.metadata) : errorMetadata(handle.metadata, error),
        profile: llmProfile(handle.modelName),
        dataSchema: handle.dataSchema ?? null,
      });
      if (cancelled) throw signal.reason ?? new Error("llm call cancelled");
      throw error;
    }
    this.close(stack, handle, response, {});
    return response;
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
    if (!this.core.listening(stack)) return handle; // nothing subscribed: build no event
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "start",
      handle.startedAtUs,
      { data: recordableRequest(request, this.core.headerPolicy), metadata: handle.metadata, profile: llmProfile(handle.modelName), dataSchema: handle.dataSchema ?? null },
      this.payloadTransform(stack, "request", undefined, handle.name),
    );
    return handle;
  }

  private close(stack: ScopeStack, handle: InternalLlmHandle, response: Json, options: EndLlmOptions): void {
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
        profile: pricedProfile(llmProfile(options.modelName ?? handle.modelName), this.core.pricing, handle, response),
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
