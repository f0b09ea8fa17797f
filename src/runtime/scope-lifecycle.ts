import { severityKey } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeContext, ScopeHandle, ScopeStack } from "../events/scope-stack.js";
import { currentScopeContext, enterScopeContext } from "../events/scope-stack.js";
import { RelaytraceError } from "./errors.js";
import { errorMetadata, normalizeAttributes, okMetadata, shallowMerge } from "./event-factory.js";
import type { MetricMeasurement } from "./metric.js";
import { METRIC_SCHEMA, metricData } from "./metric.js";
import { checkCategory } from "./options.js";
import { inboundOtelParent, inboundStack, runInSpan, traceRootUuid, withInboundLink } from "./otel-context.js";
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
  async withScope<T>(name: string, fn: (scope: ScopeControl) => T | Promise<T>, options: ScopeOptions = {}): Promise<T> {
    const outer = currentScopeContext();
    const { handle, stack: base } = this.open(outer, name, options);
    let output: Json = null;
    let extraMetadata: JsonObject | undefined;
    const control: ScopeControl = Object.assign(Object.create(handle) as ScopeHandle, {
      setOutput(value: Json) {
        output = value;
      },
      addMetadata(value: JsonObject) {
        extraMetadata = { ...extraMetadata, ...value };
      },
    });
    // The body runs on its own copy of the stack, so concurrent scopes never see each other.
    const stack = base.snapshot();
    stack.push(handle);
    const inner: ScopeContext = { stack };
    let metadata: Json;
    try {
      const result = await runInSpan(inner, handle, () => fn(control));
      metadata = okMetadata(shallowMerge(handle.metadata, extraMetadata));
      return result;
    } catch (error) {
      metadata = errorMetadata(shallowMerge(handle.metadata, extraMetadata), error);
      throw error;
    } finally {
      this.close(stack, handle, output, metadata!, undefined);
    }
  }

  /**
   * Opens a scope and makes it the current scope of this async context from here on (what follows
   * in this function and everything it awaits or starts); it must be closed with `popScope`. A
   * concurrent request, running in its own async context, never sees it.
   */
  pushScope(name: string, options: ScopeOptions = {}): ScopeHandle {
    const context = currentScopeContext();
    const { handle, stack: base } = this.open(context, name, options);
    const stack = base.snapshot();
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
    const uuid = this.core.newId();
    this.core.emitMark(context.stack, {
      uuid,
      parentUuid: options.parent?.uuid ?? context.stack.top().uuid,
      timestampUs: this.core.startTime(options.timestamp),
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
    const uuid = this.core.newId();
    this.core.emitMark(context.stack, {
      uuid,
      parentUuid: options.parent?.uuid ?? context.stack.top().uuid,
      timestampUs: this.core.startTime(options.timestamp),
      name,
      category: null,
      profile: null,
      data,
      dataSchema: METRIC_SCHEMA,
      metadata: options.metadata ?? null,
    });
    return uuid;
  }

  /** Emits the start of a new scope; returns it and the stack it belongs to (carrying an app OTel span's trace, if it continues one). */
  private open(context: ScopeContext, name: string, options: ScopeOptions): { handle: OpenScope; stack: ScopeStack } {
    checkCategory(options.category, name);
    const category = options.category ?? "function";
    if (category === "custom" && typeof options.categoryProfile?.subtype !== "string") {
      throw new TypeError('a "custom" scope needs categoryProfile.subtype');
    }
    const inbound = options.parent === undefined ? inboundOtelParent(context) : undefined;
    const stack = inboundStack(context.stack, inbound);
    const handle: OpenScope = {
      uuid: this.core.newId(),
      name,
      category,
      parentUuid: options.parent?.uuid ?? inbound?.link.parentUuid ?? stack.top().uuid,
      attributes: normalizeAttributes(options.attributes),
      startedAtUs: this.core.startTime(options.timestamp),
      metadata: options.metadata ?? null,
      categoryProfile: options.categoryProfile ?? null,
      ended: false,
    };
    handle[TRACE_ROOT] = traceRootUuid({ stack }, handle);
    this.core.emitScope(stack, handle, "start", handle.startedAtUs, {
      data: options.input ?? null,
      metadata: withInboundLink(handle.metadata, inbound),
      profile: handle.categoryProfile,
    });
    return { handle, stack };
  }

  private close(
    stack: ScopeContext["stack"],
    handle: OpenScope,
    output: Json,
    metadata: Json,
    timestamp: PopScopeOptions["timestamp"],
  ): void {
    handle.ended = true;
    // Built and snapshotted while the scope is still visible, so its scope-local registrations apply.
    this.core.emitScope(stack, handle, "end", this.core.endTime(handle.startedAtUs, timestamp), {
      data: output,
      metadata,
      profile: handle.categoryProfile,
    });
    for (const registry of this.core.registries.all()) registry.removeScope(handle.uuid);
  }
}
