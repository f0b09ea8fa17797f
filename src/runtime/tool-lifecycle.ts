import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { runInSpan } from "./otel-context.js";
import {
  ANNOTATION_PENDING,
  PENDING_REQUEST_SCHEMA,
  PROFILE_TOOL_CALL_ID,
  PROFILE_TOOL_RESULT_ANNOTATION,
  severityKey,
  TOOL_PENDING_MARK,
} from "../events/wire-names.js";
import { signalForCall } from "./abort.js";
import { recordWhileFailing } from "./failure-path.js";
import { endDataOf, isCallFailure, type CallFailure } from "./errors.js";
import { cancelledMetadata, errorMetadata, normalizeAttributes, okEndMetadata, shallowMerge } from "./event-factory.js";
import { FrozenJson } from "./json-safe.js";
import type { LayerOutcome } from "./intercept-chain.js";
import { buildToolChain, withoutMarks } from "./intercept-chain.js";
import { placeCall, placeCallOn, runCall, type Call, type CallPlace } from "./call.js";
import type { RegistryEntry } from "./registry.js";
import { toToolResult, wireSeverity } from "./outcome.js";
import type { Registries, RuntimeCore, ScopeShape, ToolGuardrail, ToolRequestIntercept } from "./runtime-core.js";
import type { EndToolOptions, PendingMarkSpec, ToolContext, ToolExecutionResult, ToolFunction, ToolHandle, ToolOptions } from "./types.js";

interface InternalToolHandle extends ToolHandle {
  readonly category: "tool";
  ended: boolean;
  readonly fallbackData: Json | undefined;
  /** The start and end events' category profile (without an annotation), built once. */
  profile?: FrozenJson<JsonObject>;
  /** A manual call's stack when it continues an app's OTel span (its end then carries that trace). */
  linkedStack?: ScopeStack;
}

/** Shared empty mark list of the fast path; only read (`forEach`), never mutated. */
const NO_MARKS: PendingMarkSpec[] = [];
const NO_SANITIZERS: readonly { name: string; callback: (value: Json) => Json }[] = [];

function toolProfile(toolCallId: string | undefined): JsonObject {
  return toolCallId === undefined ? {} : { [PROFILE_TOOL_CALL_ID]: toolCallId };
}

const EMPTY_PROFILE = new FrozenJson<JsonObject>({});

/** The category profile a tool's events share; only strings the runtime holds, so it needs no copy. */
function sharedProfile(handle: InternalToolHandle): FrozenJson<JsonObject> {
  if (handle.toolCallId === undefined) return EMPTY_PROFILE;
  return (handle.profile ??= new FrozenJson(toolProfile(handle.toolCallId)));
}

/** Managed and manual tool calls: the call skeleton's tool parts, ends, suspension and pending marks. */
export class ToolLifecycle {
  readonly registries: Registries;

  constructor(readonly core: RuntimeCore) {
    this.registries = core.registries;
  }

  execute(name: string, args: Json, fn: ToolFunction, options: ToolOptions = {}): Promise<ToolExecutionResult> {
    return runCall(this.core, new ToolCall(this, currentScopeContext(), name, args, fn, options));
  }

  start(name: string, args: Json, options: ToolOptions = {}): ToolHandle {
    const place = placeCall(currentScopeContext(), options.parent);
    const handle = this.open(place, name, args, options, false);
    if (place.inbound !== undefined) handle.linkedStack = place.stack;
    return handle;
  }

  end(handle: ToolHandle, outcome: ToolExecutionResult | { error: unknown }, options: EndToolOptions = {}): void {
    const internal = handle as InternalToolHandle;
    if (internal.ended) {
      this.core.diagnostics.record("tool.already_ended", `tool ${handle.name} (${handle.uuid}) ended twice; second end ignored`);
      return;
    }
    internal.ended = true;
    const stack = internal.linkedStack ?? currentScopeContext().stack;
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
    const endUs = this.close(stack, internal, result, false, options);
    this.emitPendingMarks(stack, internal, endUs, result.pending, result.pendingMarks ?? NO_MARKS);
  }

  /**
   * Creates the handle and emits the start. A managed handle never reaches the app, so when
   * nothing listens its start time is not read (an end then emitted to a later subscriber is
   * stamped `now`, as `end >= start + 1 µs` allows).
   */
  open(place: CallPlace, name: string, args: Json, options: ToolOptions, managed: boolean): InternalToolHandle {
    const { stack, parentUuid } = place;
    const listening = this.core.listening(stack);
    const stamped = listening || !managed || options.timestamp !== undefined;
    const startedAtUs = stamped ? this.core.startTime(options.timestamp) : 0;
    const handle: InternalToolHandle = {
      uuid: stamped ? this.core.idFor(startedAtUs, options.timestamp) : this.core.newId(),
      name,
      category: "tool",
      parentUuid,
      startedAtUs,
      attributes: normalizeAttributes(options.attributes),
      metadata: options.metadata ?? null,
      ended: false,
      fallbackData: options.data,
      toolCallId: options.toolCallId,
    };
    if (!listening) return handle; // nothing subscribed: build no event
    this.core.emitScope(
      stack,
      handle,
      "start",
      handle.startedAtUs,
      { data: args, metadata: handle.metadata, profile: sharedProfile(handle) },
      this.payloadTransform(stack, name, "request", undefined),
    );
    return handle;
  }

  /**
   * Emits a successful end; the annotation is attached outside the response chain, which never
   * sees it. A suspended call ends OK with the pending request in its annotation. Returns the
   * end time, or undefined when a managed call's end has nobody to reach (then not even read).
   */
  close(
    stack: ScopeStack,
    handle: InternalToolHandle,
    outcome: ToolExecutionResult,
    managed: boolean,
    options: EndToolOptions | undefined,
  ): number | undefined {
    handle.ended = true;
    if (managed && !this.core.listening(stack)) return undefined;
    // A manual end still checks (and clamps) an explicit timestamp when nothing listens.
    const endUs = this.core.endTime(handle.startedAtUs, options?.timestamp);
    if (!this.core.listening(stack)) return endUs;
    // Managed ends carry status OK; the manual path adds no status keys.
    const metadata = managed ? okEndMetadata(handle.metadata) : shallowMerge(handle.metadata, options?.metadata);
    const annotation = annotationOf(outcome);
    const profile =
      annotation === undefined
        ? sharedProfile(handle)
        : { ...toolProfile(handle.toolCallId), [PROFILE_TOOL_RESULT_ANNOTATION]: annotation };
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

  /**
   * The failed end of a managed call. The data the failure carries (a `CallFailure`'s: the loop's
   * error result for a tool that threw) is the end's data and goes through the response
   * sanitizers like a result.
   */
  fail(stack: ScopeStack, handle: InternalToolHandle, error: unknown, cancelled: boolean, endData?: Json): void {
    handle.ended = true;
    const recorded = cancelled ? undefined : (endData ?? endDataOf(error));
    this.core.emitScope(
      stack,
      scopeOf(handle),
      "end",
      this.core.endTime(handle.startedAtUs, undefined),
      {
        data: recorded ?? handle.fallbackData ?? null,
        metadata: cancelled ? cancelledMetadata(handle.metadata, "tool") : errorMetadata(handle.metadata, error),
        profile: toolProfile(handle.toolCallId),
      },
      recorded === undefined ? undefined : this.payloadTransform(stack, handle.name, "response", undefined),
    );
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

  /** The `tool.pending` mark of a suspension first (it is the innermost outcome), then the intercepts' marks. */
  emitPendingMarks(
    stack: ScopeStack,
    handle: InternalToolHandle,
    closedAtUs: number | undefined,
    pending: JsonObject | undefined,
    marksBelow: PendingMarkSpec[],
  ): void {
    if (pending === undefined && marksBelow.length === 0) return;
    const marks = pending === undefined ? marksBelow : [pendingMark(handle, pending), ...marksBelow];
    const endUs = closedAtUs ?? this.core.endTime(handle.startedAtUs, undefined); // the end was not stamped: nobody listened
    marks.forEach((spec, i) => {
      let metadata: Json = spec.metadata ?? null;
      if (spec.severity !== undefined) {
        if (metadata !== null && !isJsonObject(metadata)) {
          this.core.diagnostics.record(
            "tool_pending_mark_dropped",
            `pending mark ${spec.name}: metadata must be an object when severity is set`,
          );
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
}

/**
 * One `executeTool` call as the call skeleton drives it. A class rather than an object
 * of closures: one allocation per call. `run` returns the tool's own value when no execution
 * intercept is registered (checked in `close`), else the intercept chain's settled outcome.
 */
class ToolCall implements Call<Json, InternalToolHandle, unknown, ToolExecutionResult> {
  readonly kind = "tool";
  stack!: ScopeStack;
  parentUuid!: string;
  inbound: CallPlace["inbound"];
  readonly metadata: Json;
  readonly signal: AbortSignal | undefined;
  readonly guardrails: readonly RegistryEntry<ToolGuardrail>[];
  readonly requestIntercepts: readonly RegistryEntry<ToolRequestIntercept>[];
  /** Whether `run` called the tool directly (its value is checked in `close`). */
  private direct = true;
  /** The tool function's own `CallFailure`, unwrapped before the intercepts saw it. */
  private failure: CallFailure | undefined;

  constructor(
    private readonly tools: ToolLifecycle,
    context: ScopeContext,
    readonly name: string,
    readonly input: Json,
    private readonly fn: ToolFunction,
    private readonly options: ToolOptions,
  ) {
    // Under an app's OTel span the call carries that span's trace: its events and children.
    placeCallOn(this, context, options.parent);
    const regs = tools.registries;
    this.signal = options.signal;
    this.metadata = options.metadata ?? null;
    this.guardrails = regs.toolGuardrails.effective(this.stack);
    this.requestIntercepts = regs.toolRequestIntercepts.effective(this.stack);
  }

  open(input: Json): InternalToolHandle {
    return this.tools.open(this, this.name, input, this.options, true);
  }

  run(handle: InternalToolHandle, input: Json): unknown {
    const signal = signalForCall(this.signal);
    const toolCtx: ToolContext =
      handle.toolCallId === undefined
        ? { signal, toolUuid: handle.uuid }
        : { signal, toolUuid: handle.uuid, toolCallId: handle.toolCallId };
    const execContext: ScopeContext = { stack: this.stack.snapshot(), activeEventUuid: handle.uuid };
    const intercepts = this.tools.registries.toolExecutionIntercepts.effective(this.stack);
    const fn = this.fn;
    if (intercepts.length === 0) {
      // Fast path: the tool runs directly in its context; its value is checked when it settles.
      return runInSpan(execContext, handle, () => fn(input, toolCtx));
    }
    this.direct = false;
    const info = { tool: this.name, toolUuid: handle.uuid, ...(handle.toolCallId !== undefined ? { toolCallId: handle.toolCallId } : {}) };
    // Intercepts see what the tool function failed with, never the wrapper saying what to record.
    const unwrap = (error: unknown): unknown => {
      if (!isCallFailure(error)) return error;
      this.failure = error;
      return error.cause;
    };
    return runInSpan(execContext, handle, () => buildToolChain(intercepts, (a) => fn(a, toolCtx), info, execContext, unwrap)(input));
  }

  close(handle: InternalToolHandle, value: unknown): ToolExecutionResult {
    if (this.direct) {
      // The checked copy of the tool's value is what the app gets; there are no intercept marks.
      let result: ToolExecutionResult;
      try {
        result = toToolResult(value);
      } catch (error) {
        // A malformed tool result fails the call, with its own error.
        recordWhileFailing(this.tools.core.diagnostics, `tool ${this.name}`, () => this.fail(handle, error, false));
        throw error;
      }
      const endUs = this.tools.close(this.stack, handle, result, true, undefined);
      if (result.pendingMarks === undefined) {
        this.tools.emitPendingMarks(this.stack, handle, endUs, result.pending, NO_MARKS);
        return result;
      }
      this.tools.emitPendingMarks(this.stack, handle, endUs, result.pending, result.pendingMarks);
      return withoutMarks({ ...result, marks: NO_MARKS });
    }
    const outcome = value as LayerOutcome;
    const endUs = this.tools.close(this.stack, handle, outcome, true, undefined);
    this.tools.emitPendingMarks(this.stack, handle, endUs, outcome.pending, outcome.marks);
    return withoutMarks(outcome); // what the app gets: the unsanitized result, its annotation, a suspension's request
  }

  fail(handle: InternalToolHandle, error: unknown, cancelled: boolean, endData?: Json): void {
    // The tool function's failure data holds only while the call fails with what it threw.
    const recorded = endData ?? (this.failure !== undefined && this.failure.cause === error ? this.failure.endData : undefined);
    this.tools.fail(this.stack, handle, error, cancelled, recorded);
  }
}

/** The end annotation: a suspension's `{pending: request}` joins whatever annotation the result had. */
function annotationOf(outcome: ToolExecutionResult): Json | undefined {
  const annotation = outcome.annotation ?? undefined;
  if (outcome.pending === undefined) return annotation === null ? undefined : annotation;
  return isJsonObject(annotation) ? { ...annotation, [ANNOTATION_PENDING]: outcome.pending } : { [ANNOTATION_PENDING]: outcome.pending };
}

function pendingMark(handle: ToolHandle, request: JsonObject): PendingMarkSpec {
  return {
    name: TOOL_PENDING_MARK,
    category: "tool",
    categoryProfile: toolProfile(handle.toolCallId),
    data: request,
    dataSchema: PENDING_REQUEST_SCHEMA,
  };
}

function scopeOf(handle: ToolHandle): ScopeShape {
  return { uuid: handle.uuid, name: handle.name, category: "tool", parentUuid: handle.parentUuid, attributes: handle.attributes };
}
