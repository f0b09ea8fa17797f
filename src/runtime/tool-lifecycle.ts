import { GUARDRAIL_KIND_TOOL, PROFILE_TOOL_CALL_ID, PROFILE_TOOL_RESULT_ANNOTATION, severityKey } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { inboundOtelParent, runInSpan } from "./otel-context.js";
import { CANCELLED, NEVER_ABORTED, raceAbort } from "./abort.js";
import { GuardrailRejectedError } from "./errors.js";
import { cancelledMetadata, errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import type { LayerOutcome } from "./intercept-chain.js";
import { buildToolChain } from "./intercept-chain.js";
import { toToolResult, wireSeverity } from "./outcome.js";
import type { RuntimeCore, ScopeShape } from "./runtime-core.js";
import type {
  EndToolOptions,
  PendingMarkSpec,
  ToolContext,
  ToolExecutionResult,
  ToolFunction,
  ToolHandle,
  ToolOptions,
} from "./types.js";

interface InternalToolHandle extends ToolHandle {
  readonly category: "tool";
  ended: boolean;
  readonly fallbackData: Json | undefined;
}

/** Shared empty mark list of the fast path; only read (`forEach`), never mutated. */
const NO_MARKS: PendingMarkSpec[] = [];
const NO_SANITIZERS: readonly { name: string; callback: (value: Json) => Json }[] = [];

function toolProfile(toolCallId: string | undefined): JsonObject {
  return toolCallId === undefined ? {} : { [PROFILE_TOOL_CALL_ID]: toolCallId };
}

/** Managed and manual tool lifecycles: guardrails, request intercepts, the intercept chain, ends and pending marks. */
export class ToolLifecycle {
  constructor(private readonly core: RuntimeCore) {}

  async execute(name: string, args: Json, fn: ToolFunction, options: ToolOptions = {}): Promise<ToolExecutionResult> {
    const context = currentScopeContext();
    const stack = context.stack;
    const parentUuid = options.parent?.uuid ?? inboundOtelParent(context)?.parentUuid ?? stack.top().uuid;
    const regs = this.core.registries;

    const guardrails = regs.toolGuardrails.effective(stack);
    if (guardrails.length > 0) await this.runGuardrails(stack, name, args, parentUuid, options.metadata ?? null, guardrails);

    let realArgs = args;
    for (const intercept of regs.toolRequestIntercepts.effective(stack)) {
      realArgs = await intercept.callback(name, realArgs);
      if (intercept.breakChain) break;
    }

    const handle = this.open(stack, name, realArgs, options, parentUuid);
    const signal = options.signal ?? NEVER_ABORTED;
    const toolCtx: ToolContext =
      handle.toolCallId === undefined
        ? { signal, toolUuid: handle.uuid }
        : { signal, toolUuid: handle.uuid, toolCallId: handle.toolCallId };
    const execContext: ScopeContext = { stack: stack.snapshot(), activeEventUuid: handle.uuid, propagatedRootUuid: context.propagatedRootUuid };
    const intercepts = regs.toolExecutionIntercepts.effective(stack);

    let outcome: LayerOutcome;
    try {
      if (signal.aborted) throw CANCELLED;
      if (intercepts.length === 0) {
        // Fast path: call the tool directly in its context; no wrapper async function (each extra
        // promise costs a hook call per promise while AsyncLocalStorage is active on Node 20).
        const value = runInSpan(execContext, handle, () => fn(realArgs, toolCtx));
        const settled = signal === NEVER_ABORTED ? await value : await raceAbort(Promise.resolve(value), signal);
        const checked = toToolResult(settled);
        outcome = checked.annotation === undefined ? { result: checked.result, marks: NO_MARKS } : { result: checked.result, annotation: checked.annotation, marks: NO_MARKS };
      } else {
        const run = runInSpan(execContext, handle, () =>
          buildToolChain(intercepts, (a) => fn(a, toolCtx), { tool: name, toolUuid: handle.uuid, ...(handle.toolCallId !== undefined ? { toolCallId: handle.toolCallId } : {}) }, execContext)(realArgs),
        );
        outcome = await raceAbort(run, signal);
      }
    } catch (error) {
      handle.ended = true;
      const endUs = this.core.endTime(handle.startedAtUs, undefined);
      if (error === CANCELLED) {
        this.core.emitScope(stack, scopeOf(handle), "end", endUs, {
          data: handle.fallbackData ?? null,
          metadata: cancelledMetadata(handle.metadata),
          profile: toolProfile(handle.toolCallId),
        });
        throw signal.reason ?? new Error("tool execution cancelled");
      }
      this.core.emitScope(stack, scopeOf(handle), "end", endUs, {
        data: handle.fallbackData ?? null,
        metadata: errorMetadata(handle.metadata, error),
        profile: toolProfile(handle.toolCallId),
      });
      throw error;
    }

    const endUs = this.close(stack, handle, outcome, true, undefined);
    this.emitPendingMarks(stack, handle, endUs, outcome.marks);
    return outcome.annotation === undefined ? { result: outcome.result } : { result: outcome.result, annotation: outcome.annotation };
  }

  start(name: string, args: Json, options: ToolOptions = {}): ToolHandle {
    const stack = currentScopeContext().stack;
    return this.open(stack, name, args, options, options.parent?.uuid ?? stack.top().uuid);
  }

  end(handle: ToolHandle, outcome: ToolExecutionResult | { error: unknown }, options: EndToolOptions = {}): void {
    const internal = handle as InternalToolHandle;
    if (internal.ended) {
      this.core.diagnostics.record("tool.already_ended", `tool ${handle.name} (${handle.uuid}) ended twice; second end ignored`);
      return;
    }
    internal.ended = true;
    const stack = currentScopeContext().stack;
    const metadata = shallowMerge(internal.metadata, options.metadata);
    if ("error" in outcome && !("result" in outcome)) {
      this.core.emitScope(stack, scopeOf(internal), "end", this.core.endTime(internal.startedAtUs, options.timestamp), {
        data: options.data ?? internal.fallbackData ?? null,
        metadata: errorMetadata(metadata, outcome.error),
        profile: toolProfile(internal.toolCallId),
      });
      return;
    }
    const result = toToolResult(outcome, "endTool");
    this.close(stack, internal, result, false, options);
  }

  private open(stack: ScopeStack, name: string, args: Json, options: ToolOptions, parentUuid: string): InternalToolHandle {
    const handle: InternalToolHandle = {
      uuid: this.core.newId(),
      name,
      category: "tool",
      parentUuid,
      startedAtUs: this.core.startTime(options.timestamp),
      attributes: normalizeAttributes(options.attributes),
      metadata: options.metadata ?? null,
      ended: false,
      fallbackData: options.data,
      toolCallId: options.toolCallId,
    };
    if (!this.core.listening(stack)) return handle; // nothing subscribed: build no event
    this.core.emitScope(
      stack,
      handle,
      "start",
      handle.startedAtUs,
      { data: args, metadata: handle.metadata, profile: toolProfile(handle.toolCallId) },
      this.payloadTransform(stack, name, "request", undefined),
    );
    return handle;
  }

  /** Emits a successful end; the annotation is attached outside the response chain, which never sees it. */
  private close(
    stack: ScopeStack,
    handle: InternalToolHandle,
    outcome: ToolExecutionResult,
    managed: boolean,
    options: EndToolOptions | undefined,
  ): number {
    handle.ended = true;
    const endUs = this.core.endTime(handle.startedAtUs, options?.timestamp);
    if (!this.core.listening(stack)) return endUs;
    // Managed ends carry status OK; the manual path adds no status keys.
    const metadata = managed ? okMetadata(handle.metadata) : shallowMerge(handle.metadata, options?.metadata);
    const profile = toolProfile(handle.toolCallId);
    if (outcome.annotation !== undefined && outcome.annotation !== null) profile[PROFILE_TOOL_RESULT_ANNOTATION] = outcome.annotation;
    this.core.emitScope(
      stack,
      handle,
      "end",
      endUs,
      { data: outcome.result, metadata, profile },
      this.payloadTransform(stack, handle.name, "response", options?.data ?? handle.fallbackData),
    );
    return endUs;
  }

  private payloadTransform(stack: ScopeStack, tool: string, which: "request" | "response", fallback: Json | undefined) {
    const registry = which === "request" ? this.core.registries.toolSanitizeRequest : this.core.registries.toolSanitizeResponse;
    const entries = registry.effective(stack);
    return this.core.payloadTransform(
      entries.length === 0 ? NO_SANITIZERS : entries.map((e) => ({ name: e.name, callback: (value: Json) => e.callback(tool, value) })),
      `tool_sanitize_${which}`,
      fallback,
      `${tool} data`,
    );
  }

  private emitPendingMarks(stack: ScopeStack, handle: InternalToolHandle, endUs: number, marks: PendingMarkSpec[]): void {
    marks.forEach((spec, i) => {
      let metadata: Json = spec.metadata ?? null;
      if (spec.severity !== undefined) {
        if (metadata !== null && !isJsonObject(metadata)) {
          this.core.diagnostics.record("tool_pending_mark_dropped", `pending mark ${spec.name}: metadata must be an object when severity is set`);
          return; // a dropped mark leaves its gap in the timestamps
        }
        metadata = { ...(metadata ?? {}), [severityKey(this.core.namespace)]: wireSeverity(spec.severity) };
      }
      this.core.emitMark(stack, {
        uuid: this.core.newId(),
        parentUuid: handle.uuid,
        timestampUs: endUs + i + 1,
        name: spec.name,
        category: spec.category ?? null,
        profile: spec.categoryProfile ?? null,
        data: spec.data ?? null,
        dataSchema: spec.dataSchema ?? null,
        metadata,
      });
    });
  }

  private async runGuardrails(
    stack: ScopeStack,
    tool: string,
    args: Json,
    parentUuid: string,
    metadata: Json,
    guardrails: readonly { name: string; callback: (tool: string, args: Json) => unknown }[],
  ): Promise<void> {
    for (const guardrail of guardrails) {
      const scope: ScopeShape = { uuid: this.core.newId(), name: guardrail.name, category: "guardrail", parentUuid, attributes: [] };
      const startUs = this.core.nowUs();
      // Raw args are never put in guardrail events.
      this.core.emitScope(stack, scope, "start", startUs, {
        data: { kind: GUARDRAIL_KIND_TOOL, target_name: tool },
        metadata,
        profile: null,
      });
      let reason: unknown;
      try {
        reason = await guardrail.callback(tool, args);
      } catch (error) {
        this.core.emitScope(stack, scope, "end", this.core.endTime(startUs, undefined), {
          data: { allowed: false, error: error instanceof Error ? error.message : String(error) },
          metadata,
          profile: null,
        });
        throw error;
      }
      if (typeof reason === "string") {
        const endUs = this.core.endTime(startUs, undefined);
        this.core.emitScope(stack, scope, "end", endUs, {
          data: { allowed: false, rejected: true, rejection_reason: reason },
          metadata,
          profile: null,
        });
        this.core.emitMark(stack, {
          uuid: this.core.newId(),
          parentUuid,
          timestampUs: endUs + 1,
          name: tool,
          category: null,
          profile: null,
          data: { rejected: true, rejection_reason: reason },
          dataSchema: null,
          metadata,
        });
        throw new GuardrailRejectedError(guardrail.name, reason);
      }
      this.core.emitScope(stack, scope, "end", this.core.endTime(startUs, undefined), {
        data: { allowed: true, rejected: false },
        metadata,
        profile: null,
      });
    }
  }
}

function scopeOf(handle: ToolHandle): ScopeShape {
  return { uuid: handle.uuid, name: handle.name, category: "tool", parentUuid: handle.parentUuid, attributes: handle.attributes };
}
