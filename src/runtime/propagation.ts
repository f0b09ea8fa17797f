import type { ScopeContext } from "../events/scope-stack.js";
import { ScopeStack, hiddenRoot } from "../events/scope-stack.js";
import { recordPropagatedParent } from "../events/propagation-table.js";
import { isUuid, spanIdOf, uuidHex } from "../events/uuid.js";
import { RelaytraceError } from "./errors.js";
import { traceRootUuid } from "./otel-context.js";
import type { PropagationContext } from "./types.js";

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

/** Validates wire JSON (`{version: 1, root_uuid?, parent_uuid}`) into a PropagationContext. */
export function propagationContextFromJson(value: unknown): PropagationContext {
  if (typeof value !== "object" || value === null) {
    throw new RelaytraceError("invalid_argument", "propagation context must be an object");
  }
  const v = value as Record<string, unknown>;
  if (v.version !== 1) {
    throw new RelaytraceError("invalid_argument", `unsupported propagation context version ${String(v.version)}; expected 1`);
  }
  const parent = checkUuid(v.parent_uuid, "parent_uuid");
  if (v.root_uuid === undefined || v.root_uuid === null) return { version: 1, parent_uuid: parent };
  return { version: 1, root_uuid: checkUuid(v.root_uuid, "root_uuid"), parent_uuid: parent };
}

/** The context captured from the current scope context (parent = active tool/LLM call, else the top scope). */
export function captureFrom(context: ScopeContext): PropagationContext {
  const parent = context.activeEventUuid ?? context.stack.top().uuid;
  const root = traceRootUuid(context) ?? context.activeEventUuid;
  return root === undefined ? { version: 1, parent_uuid: parent } : { version: 1, root_uuid: root, parent_uuid: parent };
}

/**
 * The stack a continued run starts from. Rooted: the trace continues (synthetic frames that never
 * emit, and the parent→root pair recorded for exporters). Rootless: parentage kept, new trace.
 */
export function contextFromPropagation(ctx: PropagationContext): ScopeContext {
  const valid = propagationContextFromJson(ctx);
  if (valid.root_uuid === undefined) {
    return { stack: new ScopeStack([hiddenRoot(valid.parent_uuid, "propagated-root")]) };
  }
  const frames = [hiddenRoot(valid.root_uuid, "propagated-root")];
  if (valid.parent_uuid !== valid.root_uuid) {
    frames.push(hiddenRoot(valid.parent_uuid, "propagated-parent", "unknown", valid.root_uuid));
  }
  recordPropagatedParent(valid.parent_uuid, valid.root_uuid);
  return { stack: new ScopeStack(frames), propagatedRootUuid: valid.root_uuid };
}

export function traceparentFrom(context: ScopeContext): string {
  const root = traceRootUuid(context) ?? context.activeEventUuid;
  if (root === undefined) {
    throw new RelaytraceError("invalid_argument", "no emitted scope is available for traceparent capture");
  }
  const span = context.activeEventUuid ?? context.stack.top().uuid;
  return `00-${uuidHex(root)}-${spanIdOf(span)}-01`;
}

export function propagationContextToTraceparent(ctx: PropagationContext): string {
  if (ctx.root_uuid === undefined) {
    throw new RelaytraceError("invalid_argument", "rootless propagation context cannot be converted to traceparent");
  }
  return `00-${uuidHex(ctx.root_uuid)}-${spanIdOf(ctx.parent_uuid)}-01`;
}
