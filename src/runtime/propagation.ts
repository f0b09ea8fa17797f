import type { ScopeContext } from "../events/scope-stack.js";
import { ScopeStack, currentScopeContext, hiddenRoot } from "../events/scope-stack.js";
import { callerLink, type TraceLink } from "../events/trace-link.js";
import { otelIdHex } from "../events/otel-ids.js";
import { isUuid, spanIdOf, uuidHex } from "../events/uuid.js";
import { formatTraceparent } from "../events/traceparent.js";
import { RelaytraceError } from "./errors.js";
import { traceRootUuid } from "./otel-context.js";
import type { PropagationContext, PropagationContextWire } from "./types.js";

function checkUuid(value: unknown, key: string): string {
  if (typeof value !== "string" || !isUuid(value)) {
    throw new RelaytraceError("invalid_argument", `propagation context ${key} must be a uuid`);
  }
  const hex = uuidHex(value);
  if (/^0+$/.test(hex) || /^0+$/.test(hex.slice(16))) {
    throw new RelaytraceError("invalid_argument", `propagation context ${key} must not be all zero`);
  }
  return value;
}

/**
 * Validates a propagation context given as NeMo Relay's JSON text
 * (`{"version":1,"root_uuid":…,"parent_uuid":…}`) or as an object: that wire shape, read from
 * storage, or a `PropagationContext` itself. Failures throw `invalid_argument`.
 */
export function propagationContextFromJson(text: string | PropagationContext | PropagationContextWire): PropagationContext {
  let value: unknown = text;
  if (typeof text === "string") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new RelaytraceError("invalid_argument", "propagation context is not JSON text");
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RelaytraceError("invalid_argument", "propagation context must be a JSON object");
  }
  const v = value as Record<string, unknown>;
  if (v.version !== 1) {
    throw new RelaytraceError("invalid_argument", `unsupported propagation context version ${String(v.version)}; expected 1`);
  }
  const parentUuid = checkUuid(v.parent_uuid ?? v.parentUuid, "parent_uuid");
  const root = v.root_uuid ?? v.rootUuid;
  const out: PropagationContext =
    root === undefined || root === null ? { version: 1, parentUuid } : { version: 1, rootUuid: checkUuid(root, "root_uuid"), parentUuid };
  const flags = v.trace_flags ?? v.traceFlags;
  if (flags !== undefined && flags !== null) {
    if (typeof flags !== "number" || !Number.isInteger(flags) || flags < 0 || flags > 255) {
      throw new RelaytraceError("invalid_argument", "propagation context trace_flags must be an integer from 0 to 255");
    }
    out.traceFlags = flags;
  }
  const state = v.tracestate;
  if (state !== undefined && state !== null) {
    if (typeof state !== "string") throw new RelaytraceError("invalid_argument", "propagation context tracestate must be a string");
    if (state.trim() !== "") out.tracestate = state.trim();
  }
  return out;
}

/**
 * Where the current code is in its trace, to continue it elsewhere: the parent is the active
 * tool or LLM call, else the innermost scope (the scope stack is process-wide, so no runtime is
 * needed). `rootUuid` is absent outside any scope.
 */
export function capturePropagationContext(): PropagationContext {
  return captureFrom(currentScopeContext());
}

/** The wire object of a context (snake_case keys; `root_uuid`, `trace_flags` and `tracestate` omitted when absent). */
export function propagationContextToWire(ctx: PropagationContext): PropagationContextWire {
  const valid = propagationContextFromJson(ctx);
  const wire: PropagationContextWire =
    valid.rootUuid === undefined
      ? { version: 1, parent_uuid: valid.parentUuid }
      : { version: 1, root_uuid: valid.rootUuid, parent_uuid: valid.parentUuid };
  if (valid.traceFlags !== undefined) wire.trace_flags = valid.traceFlags;
  if (valid.tracestate !== undefined) wire.tracestate = valid.tracestate;
  return wire;
}

/** NeMo Relay's JSON text of a context: `{"version":1,"root_uuid":"…","parent_uuid":"…"}`. */
export function propagationContextToJson(ctx: PropagationContext): string {
  return JSON.stringify(propagationContextToWire(ctx));
}

/** The context captured from the current scope context (parent = active tool/LLM call, else the top scope). */
export function captureFrom(context: ScopeContext): PropagationContext {
  const parentUuid = context.activeEventUuid ?? context.stack.top().uuid;
  const rootUuid = traceRootUuid(context) ?? context.activeEventUuid;
  if (rootUuid === undefined) return { version: 1, parentUuid };
  const link = callerLink(context.stack.link, rootUuid);
  if (link === undefined) return { version: 1, rootUuid, parentUuid };
  // A trace continued from a remote parent hands its flags and trace state on.
  return link.tracestate === undefined
    ? { version: 1, rootUuid, parentUuid, traceFlags: link.traceFlags }
    : { version: 1, rootUuid, parentUuid, traceFlags: link.traceFlags, tracestate: link.tracestate };
}

/**
 * The stack a continued run starts from. Rooted: the trace continues (synthetic frames that never
 * emit; the stack's trace link carries the remote parent, its flags and state to the events and
 * the exporters). Rootless: parentage kept, new trace.
 */
export function contextFromPropagation(ctx: PropagationContext | PropagationContextWire): ScopeContext {
  const { rootUuid, parentUuid, traceFlags, tracestate } = propagationContextFromJson(ctx);
  // The caller's run context (session, user) stays: continuing a trace does not change whose work it is.
  const run = currentScopeContext().stack.run;
  if (rootUuid === undefined) {
    return { stack: new ScopeStack([hiddenRoot(parentUuid, "propagated-root")], undefined, run) };
  }
  const link: { -readonly [K in keyof TraceLink]: TraceLink[K] } = { rootUuid, parentUuid };
  if (traceFlags !== undefined || tracestate !== undefined) link.traceFlags = traceFlags ?? 1;
  if (tracestate !== undefined) link.tracestate = tracestate;
  const frames = [hiddenRoot(rootUuid, "propagated-root")];
  if (parentUuid !== rootUuid) frames.push(hiddenRoot(parentUuid, "propagated-parent", "unknown", rootUuid));
  return { stack: new ScopeStack(frames, link, run) };
}

/** The traceparent of relaytrace span `spanUuid` in the trace rooted at `rootUuid` (sampled unless `traceFlags` says otherwise). */
export function traceparentOf(rootUuid: string, spanUuid: string, traceFlags = 1): string {
  return formatTraceparent(otelIdHex(rootUuid), spanIdOf(spanUuid), traceFlags);
}

/** The flags a traceparent of the trace rooted at `rootUuid` carries in `context`: the remote caller's, else sampled. */
export function traceFlagsIn(context: ScopeContext, rootUuid: string): number {
  return callerLink(context.stack.link, rootUuid)?.traceFlags ?? 1;
}

export function traceparentFrom(context: ScopeContext): string {
  const root = traceRootUuid(context) ?? context.activeEventUuid;
  if (root === undefined) {
    throw new RelaytraceError("invalid_argument", "no emitted scope is available for traceparent capture");
  }
  const span = context.activeEventUuid ?? context.stack.top().uuid;
  return traceparentOf(root, span, traceFlagsIn(context, root));
}

export function propagationContextToTraceparent(ctx: PropagationContext | PropagationContextWire): string {
  const { rootUuid, parentUuid, traceFlags } = propagationContextFromJson(ctx);
  if (rootUuid === undefined) {
    throw new RelaytraceError("invalid_argument", "rootless propagation context cannot be converted to traceparent");
  }
  return traceparentOf(rootUuid, parentUuid, traceFlags ?? 1);
}
