import type { Json } from "../events/json.js";
import type { ScopeContext } from "../events/scope-stack.js";
import { runInScopeContext } from "../events/scope-stack.js";
import { RelaytraceError } from "./errors.js";
import { toInterceptOutcome, toToolResult } from "./outcome.js";
import type { RegistryEntry } from "./registry.js";
import type { PendingMarkSpec, ToolExecutionIntercept, ToolExecutionInfo, ToolExecutionResult } from "./types.js";

/** A layer's settled outcome: the app-visible result plus the marks accumulated at and below it. */
export interface LayerOutcome extends ToolExecutionResult {
  marks: PendingMarkSpec[];
}

type Layer = (args: Json) => LayerOutcome | Promise<LayerOutcome>;

/** Shared, never mutated: a layer without marks. */
const NO_MARKS: PendingMarkSpec[] = [];

/** A settled result as the chain passes it on (annotation and pending request kept when present). */
export function withMarks(result: ToolExecutionResult, marks: PendingMarkSpec[]): LayerOutcome {
  const out: LayerOutcome = { result: result.result, marks };
  if (result.annotation !== undefined) out.annotation = result.annotation;
  if (result.pending !== undefined) out.pending = result.pending;
  return out;
}

/** What a continuation (and, at the top, the app) gets: the outcome without the marks, which the layer keeps aside. */
export function withoutMarks(outcome: LayerOutcome): ToolExecutionResult {
  const out: ToolExecutionResult = { result: outcome.result };
  if (outcome.annotation !== undefined) out.annotation = outcome.annotation;
  if (outcome.pending !== undefined) out.pending = outcome.pending;
  return out;
}

/** The tool's own outcome, with the marks it returned (if any) as the innermost ones. */
function baseOutcome(value: unknown): LayerOutcome {
  const result = toToolResult(value);
  return withMarks(result, result.pendingMarks ?? NO_MARKS);
}

/**
 * Builds an intercept chain around `base`, the same way for every kind: the lowest priority ends
 * up outermost, and each layer gets its input and the next layer down (`layer` says how an entry
 * is called and what it returns).
 */
export function chainIntercepts<E, I, O>(
  intercepts: readonly E[],
  base: (input: I) => O,
  layer: (entry: E, input: I, next: (input: I) => O) => O,
): (input: I) => O {
  let current = base;
  for (let i = intercepts.length - 1; i >= 0; i--) {
    const entry = intercepts[i]!;
    const downstream = current;
    current = (input) => layer(entry, input, downstream);
  }
  return current;
}

/**
 * The tool execution chain around the tool callback (built by `chainIntercepts`). Each `next`
 * call runs downstream in its own stack snapshot and returns only `{result, annotation?}`;
 * downstream marks are kept aside, ordered by the sequence number the call took when it was
 * made, and placed before the layer's own marks (innermost first).
 */
export function buildToolChain(
  intercepts: readonly RegistryEntry<ToolExecutionIntercept>[],
  base: (args: Json) => unknown,
  info: ToolExecutionInfo,
  context: ScopeContext,
  /** What the intercepts see of a failure of `base` (the call unwraps its `CallFailure` here). */
  unwrap: (error: unknown) => unknown = (error) => error,
): Layer {
  const rethrow = (error: unknown): never => {
    throw unwrap(error);
  };
  // The tool itself gets no async wrapper: its value is checked when it settles.
  const tool: Layer = (args) => {
    let value: unknown;
    try {
      value = base(args);
    } catch (error) {
      return rethrow(error);
    }
    return isThenable(value) ? Promise.resolve(value).then(baseOutcome, rethrow) : baseOutcome(value);
  };
  return chainIntercepts<RegistryEntry<ToolExecutionIntercept>, Json, LayerOutcome | Promise<LayerOutcome>>(
    intercepts,
    tool,
    (intercept, args, downstream) => runToolLayer(intercept, args, downstream, info, context),
  );
}

async function runToolLayer(
  intercept: RegistryEntry<ToolExecutionIntercept>,
  args: Json,
  downstream: Layer,
  info: ToolExecutionInfo,
  context: ScopeContext,
): Promise<LayerOutcome> {
  let settled = false;
  let calls = 0;
  const batches: { seq: number; marks: PendingMarkSpec[] }[] = [];
  const next = async (nextArgs: Json): Promise<ToolExecutionResult> => {
    if (settled) {
      throw new RelaytraceError("invalid_argument", `continuation used after intercept settled (${intercept.name})`);
    }
    const seq = calls++;
    const snapshot: ScopeContext = { stack: context.stack.snapshot(), activeEventUuid: context.activeEventUuid };
    const outcome = await runInScopeContext(snapshot, downstream, nextArgs);
    if (outcome.marks.length > 0) batches.push({ seq, marks: outcome.marks });
    return withoutMarks(outcome);
  };
  try {
    const outcome = toInterceptOutcome(await intercept.callback(args, next, info), intercept.name);
    if (batches.length === 0) return withMarks(outcome, outcome.pendingMarks.length === 0 ? NO_MARKS : [...outcome.pendingMarks]);
    if (batches.length > 1) batches.sort((a, b) => a.seq - b.seq);
    const marks: PendingMarkSpec[] = [];
    for (const batch of batches) for (const mark of batch.marks) marks.push(mark);
    for (const mark of outcome.pendingMarks) marks.push(mark);
    return withMarks(outcome, marks);
  } finally {
    settled = true;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
