import { severityKey } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeContext, ScopeHandle, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext, enterScopeContext } from "../events/scope-stack.js";
import { RelaytraceError } from "./errors.js";
import { errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import type { MetricMeasurement } from "./metric.js";
import { METRIC_SCHEMA, metricData } from "./metric.js";
import { checkCategory } from "./category-check.js";
import { runInSpan, traceRootUuid, withInboundLink } from "./otel-context.js";
import { NO_STAGES, placeCall, placeCallOn, runCall, type Call, type CallPlace } from "./call.js";
import { TRACE_ROOT } from "./trace-root.js";
import { wireSeverity } from "./outcome.js";
import type { RuntimeCore } from "./runtime-core.js";
import type { MarkOptions, PopScopeOptions, ScopeOptions } from "./types.js";

/** What a `withScope` callback receives: the handle plus setters for the end event. */
export interface ScopeControl extends ScopeHandle {
  /** Becomes the end event's `data`. */
  setOutput(output: Json): void;
  /** Merged into the end event's metadata. */
  addMetadata(metadata: JsonObject): void;
}

interface OpenScope extends ScopeHandle {
  ended: boolean;
  [TRACE_ROOT]?: string;
}

/** `context` with `stack` in place of its own (the managed call running now, if any, stays). */
function withStack(context: ScopeContext, stack: ScopeStack): ScopeContext {
  return context.activeEventUuid === undefined ? { stack } : { stack, activeEventUuid: context.activeEventUuid };
}

/**
 * Whether a stack keeps its trace link once a scope is popped: a link from `withPropagation` has
 * its remote parent among the frames; one taken from an app's OTel span lasts while a scope opened
 * under that span is still open.
 */
function keepsLink(stack: ScopeStack): boolean {
  const link = stack.link;
  return link === undefined || stack.frames.some((f) => f.uuid === link.parentUuid || f.parentUuid === link.parentUuid);
}

/** Scopes (with, push, pop) and point-in-time marks and metrics. */
export class ScopeLifecycle {
  constructor(private readonly core: RuntimeCore) {}

  /** Runs `fn` inside a new scope; the scope always ends (OK on return, ERROR keys on throw). */
  withScope<T>(name: string, fn: (scope: ScopeControl) => T | Promise<T>, options: ScopeOptions = {}): Promise<T> {
    return runCall<Json, OpenScope, T>(this.core, new ScopeCall(this, currentScopeContext(), name, fn, options));
  }

  /**
   * Opens a scope and makes it the current scope of this async context from here on (what follows
   * in this function and everything it awaits or starts); it must be closed with `popScope`. A
   * concurrent request, running in its own async context, never sees it.
   */
  pushScope(name: string, options: ScopeOptions = {}): ScopeHandle {
    const context = currentScopeContext();
    const place = placeCall(context, options.parent);
    const handle = this.open(place, name, options);
    const stack = place.stack.snapshot();
    stack.push(handle);
    enterScopeContext(withStack(context, stack));
    return handle;
  }

  popScope(handle: ScopeHandle, options: PopScopeOptions = {}): void {
    const context = currentScopeContext();
    const stack = context.stack;
    const index = stack.indexOf(handle.uuid);
    if (index === 0) throw new RelaytraceError("scope_stack_empty", "the hidden root scope cannot be popped");
    if (index < 0) throw new RelaytraceError("not_found", `scope ${handle.name} (${handle.uuid}) is not on the current stack`);
    if (index !== stack.frames.length - 1) {
      const top = stack.top();
      throw new RelaytraceError(
        "invalid_argument",
        `scope handle is not at the top of the stack: popping ${handle.name} (${handle.uuid}) but ${top.name} (${top.uuid}) is on top`,
      );
    }
    this.close(stack, handle as OpenScope, options.output ?? null, shallowMerge(handle.metadata, options.metadata), options.timestamp);
    const rest = stack.snapshot();
    rest.pop();
    enterScopeContext(withStack(context, keepsLink(rest) ? rest : rest.linkedCopy(undefined)));
  }

  /** Emits a point-in-time mark; returns its uuid. */
  mark(name: string, options: MarkOptions = {}): string {
    const context = currentScopeContext();
    let metadata: Json = options.metadata ?? null;
    if (options.severity !== undefined) {
      if (metadata !== null && !isJsonObject(metadata)) {
        throw new RelaytraceError("invalid_argument", "mark metadata must be a JSON object when severity is provided");
      }
      metadata = { ...(metadata ?? {}), [severityKey(this.core.namespace)]: wireSeverity(options.severity) };
    }
    checkCategory(options.category, `mark ${name}`);
    if (options.category === "custom" && typeof options.categoryProfile?.subtype !== "string") {
      throw new TypeError('a "custom" mark needs categoryProfile.subtype');
    }
    const timestampUs = this.core.startTime(options.timestamp);
    const uuid = this.core.idFor(timestampUs, options.timestamp);
    this.core.emitMark(context.stack, {
      uuid,
      parentUuid: options.parent?.uuid ?? context.stack.top().uuid,
      timestampUs,
      name,
      category: options.category ?? null,
      profile: options.categoryProfile ?? null,
      data: options.data ?? null,
      dataSchema: options.dataSchema ?? null,
      metadata,
    });
    return uuid;
  }

  /**
   * Emits a metric mark (`data_schema` `nemo.relay.metric_measurements` v1); every measurement is
   * validated first, so a bad one emits nothing. Trace projections never render metric marks.
   */
  metric(
    name: string,
    measurements: readonly MetricMeasurement[],
    options: Pick<MarkOptions, "parent" | "metadata" | "timestamp"> = {},
  ): string {
    const data = metricData(measurements);
    const context = currentScopeContext();
    const timestampUs = this.core.startTime(options.timestamp);
    const uuid = this.core.idFor(timestampUs, options.timestamp);
    this.core.emitMark(context.stack, {
      uuid,
      parentUuid: options.parent?.uuid ?? context.stack.top().uuid,
      timestampUs,
      name,
      category: null,
      profile: null,
      data,
      dataSchema: METRIC_SCHEMA,
      metadata: options.metadata ?? null,
    });
    return uuid;
  }

  /** Emits the start of a new scope (carrying an app OTel span's trace, if it continues one). */
  open(place: CallPlace, name: string, options: ScopeOptions): OpenScope {
    checkCategory(options.category, name);
    const category = options.category ?? "function";
    if (category === "custom" && typeof options.categoryProfile?.subtype !== "string") {
      throw new TypeError('a "custom" scope needs categoryProfile.subtype');
    }
    const { stack, inbound } = place;
    const startedAtUs = this.core.startTime(options.timestamp);
    const handle: OpenScope = {
      uuid: this.core.idFor(startedAtUs, options.timestamp),
      name,
      category,
      parentUuid: place.parentUuid,
      attributes: normalizeAttributes(options.attributes),
      startedAtUs,
      metadata: options.metadata ?? null,
      categoryProfile: options.categoryProfile ?? null,
      ended: false,
    };
    handle[TRACE_ROOT] = traceRootUuid({ stack }, handle);
    this.core.llmTotals?.opened(handle.uuid, category, handle.parentUuid, stack);
    this.core.emitScope(stack, handle, "start", handle.startedAtUs, {
      data: options.input ?? null,
      metadata: withInboundLink(handle.metadata, inbound),
      profile: handle.categoryProfile,
    });
    return handle;
  }

  /** Emits the end of a scope, on the stack its body ran on (so its scope-local registrations apply). */
  close(stack: ScopeContext["stack"], handle: OpenScope, output: Json, metadata: Json, timestamp: PopScopeOptions["timestamp"]): void {
    handle.ended = true;
    // Built and snapshotted while the scope is still visible, so its scope-local registrations apply.
    const totals = this.core.llmTotals;
    this.core.emitScope(stack, handle, "end", this.core.endTime(handle.startedAtUs, timestamp), {
      data: output,
      metadata,
      // An agent's or a trace's outermost scope: the cost and usage of the model calls inside it.
      profile: totals === undefined ? handle.categoryProfile : totals.closed(handle.uuid, handle.categoryProfile),
    });
    for (const registry of this.core.registries.all()) registry.removeScope(handle.uuid);
  }
}

/**
 * One `withScope` call as the call skeleton drives it. A scope has no guardrails, intercepts or
 * signal: its body is the caller's own code, run on its own copy of the stack (with the scope on
 * top), so concurrent scopes never see each other.
 */
class ScopeCall<T> implements Call<Json, OpenScope, T> {
  readonly kind = "scope";
  stack!: ScopeStack;
  parentUuid!: string;
  inbound: CallPlace["inbound"];
  readonly input: Json;
  readonly metadata: Json;
  readonly signal = undefined;
  readonly guardrails = NO_STAGES;
  readonly requestIntercepts = NO_STAGES;
  /** The body's stack: the call's stack with the scope pushed. */
  private body: ScopeStack | undefined;
  private output: Json = null;
  private extraMetadata: JsonObject | undefined;

  constructor(
    private readonly scopes: ScopeLifecycle,
    context: ScopeContext,
    readonly name: string,
    private readonly fn: (scope: ScopeControl) => T | Promise<T>,
    private readonly options: ScopeOptions,
  ) {
    placeCallOn(this, context, options.parent);
    this.input = options.input ?? null;
    this.metadata = options.metadata ?? null;
  }

  open(): OpenScope {
    return this.scopes.open(this, this.name, this.options);
  }

  run(handle: OpenScope): T | Promise<T> {
    const control: ScopeControl = Object.assign(Object.create(handle) as ScopeHandle, {
      setOutput: (value: Json) => {
        this.output = value;
      },
      addMetadata: (value: JsonObject) => {
        this.extraMetadata = { ...this.extraMetadata, ...value };
      },
    });
    const body = this.stack.snapshot();
    body.push(handle);
    this.body = body;
    return runInSpan({ stack: body }, handle, () => this.fn(control));
  }

  close(handle: OpenScope): void {
    this.scopes.close(this.body!, handle, this.output, okMetadata(shallowMerge(handle.metadata, this.extraMetadata)), undefined);
  }

  fail(handle: OpenScope, error: unknown): void {
    const metadata = errorMetadata(shallowMerge(handle.metadata, this.extraMetadata), error);
    // A body that never started (its call failed before running it) has no stack of its own.
    this.scopes.close(this.body ?? this.stack, handle, this.output, metadata, undefined);
  }
}
