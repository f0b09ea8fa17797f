import type { ScopeContext } from "../events/scope-stack.js";
import { ScopeStack, currentScopeContext, hiddenRoot } from "../events/scope-stack.js";
import { recordPropagatedParent } from "../events/propagation-table.js";
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
  if (root === undefined || root === null) return { version: 1, parentUuid };
  return { version: 1, rootUuid: checkUuid(root, "root_uuid"), parentUuid };
}

/**
 * Where the current code is in its trace, to continue it elsewhere: the parent is the active
 * tool or LLM call, else the innermost scope (the scope stack is process-wide, so no runtime is
 * needed). `rootUuid` is absent outside any scope.
 */
export function capturePropagationContext(): PropagationContext {
  return captureFrom(currentScopeContext());
}

/** The wire object of a context (snake_case keys; `root_uuid` omitted when absent). */
export function propagationContextToWire(ctx: PropagationContext): PropagationContextWire {
  const valid = propagationContextFromJson(ctx);
  return valid.rootUuid === undefined ? { version: 1, parent_uuid: valid.parentUuid } : { version: 1, root_uuid: valid.rootUuid, parent_uuid: valid.parentUuid };
}

/** NeMo Relay's JSON text of a context: `{"version":1,"root_uuid":"…","parent_uuid":"…"}`. */
export function propagationContextToJson(ctx: PropagationContext): string {
  return JSON.stringify(propagationContextToWire(ctx));
}

/** The context captured from the current scope context (parent = active tool/LLM call, else the top scope). */
export function captureFrom(context: ScopeContext): PropagationContext {
  const parentUuid = context.activeEventUuid ?? context.stack.top().uuid;
  const rootUuid = traceRootUuid(context) ?? context.activeEventUuid;
  return rootUuid === undefined ? { version: 1, parentUuid } : { version: 1, rootUuid, parentUuid };
}

/**
 * The stack a continued run starts from. Rooted: the trace continues (synthetic frames that never
 * emit, and the parent→root pair recorded for exporters). Rootless: parentage kept, new trace.
 */
export function contextFromPropagation(ctx: PropagationContext | PropagationContextWire): ScopeContext {
  const { rootUuid, parentUuid } = propagationContextFromJson(ctx);
  if (rootUuid === undefined) {
    return { stack: new ScopeStack([hiddenRoot(parentUuid, "propagated-root")]) };
  }
  const frames = [hiddenRoot(rootUuid, "propagated-root")];
  if (parentUuid !== rootUuid) frames.push(hiddenRoot(parentUuid, "propagated-parent", "unknown", rootUuid));
  recordPropagatedParent(parentUuid, rootUuid);
  return { stack: new ScopeStack(frames), propagatedRootUuid: rootUuid };
}

/** The traceparent of relaytrace span `spanUuid` in the trace rooted at `rootUuid` (sampled). */
export function traceparentOf(rootUuid: string, spanUuid: string): string {
  return formatTraceparent(uuidHex(rootUuid), spanIdOf(spanUuid), 1);
}

export function traceparentFrom(context: ScopeContext): string {
  const root = traceRootUuid(context) ?? context.activeEventUuid;
  if (root === undefined) {
    throw new RelaytraceError("invalid_argument", "no emitted scope is available for traceparent capture");
  }
  const span = context.activeEventUuid ?? context.stack.top().uuid;
  return traceparentOf(root, span);
}

export function propagationContextToTraceparent(ctx: PropagationContext | PropagationContextWire): string {
  const { rootUuid, parentUuid } = propagationContextFromJson(ctx);
  if (rootUuid === undefined) {
    throw new RelaytraceError("invalid_argument", "rootless propagation context cannot be converted to traceparent");
  }
  return traceparentOf(rootUuid, parentUuid);
}
