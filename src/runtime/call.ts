import type { Json } from "../events/json.js";
import type { ScopeContext, ScopeStack } from "../events/scope-stack.js";
import { GUARDRAIL_KIND_LLM, GUARDRAIL_KIND_TOOL } from "../events/wire-names.js";
import { CANCELLED, raceAbort } from "./abort.js";
import { cancellationMessage, type CallKind } from "./cancellation.js";
import { GuardrailRejectedError, isCallFailure } from "./errors.js";
import { thrownMessage } from "./event-factory.js";
import { recordWhileFailing } from "./failure-path.js";
import { inboundOtelParent, inboundStack, type InboundParent } from "./otel-context.js";
import type { RegistryEntry } from "./registry.js";
import type { RuntimeCore, ScopeShape } from "./runtime-core.js";

export { cancellationMessage, type CallKind };

type Guardrail<I> = (name: string, input: I) => unknown;
type RequestIntercept<I> = (name: string, input: I) => I | Promise<I>;

/**
 * Where a call sits in the trace: the stack its events and children belong to, and its parent.
 * `inbound` is set when the call continues an app's OpenTelemetry span (the stack then carries
 * that span's trace link).
 */
export interface CallPlace {
  readonly stack: ScopeStack;
  readonly parentUuid: string;
  readonly inbound: InboundParent | undefined;
}

/**
 * The one parent rule of every call (scope, tool, LLM call, stream; managed or manual): an
 * explicit `parent`; else, when nothing of ours is open here, the app's active OpenTelemetry span
 * (the call joins its trace); else the innermost open scope of this async context.
 */
export function placeCall(context: ScopeContext, parent: { readonly uuid: string } | undefined): CallPlace {
  return placeCallOn({ stack: context.stack, parentUuid: "", inbound: undefined }, context, parent);
}

/** `placeCall` written into a call's own fields (no object per call on the hot path). */
export function placeCallOn<T extends { -readonly [K in keyof CallPlace]: CallPlace[K] }>(
  call: T,
  context: ScopeContext,
  parent: { readonly uuid: string } | undefined,
): T {
  const inbound = parent === undefined ? inboundOtelParent(context) : undefined;
  const stack = inboundStack(context.stack, inbound);
  call.stack = stack;
  call.parentUuid = parent?.uuid ?? inbound?.link.parentUuid ?? stack.top().uuid;
  call.inbound = inbound;
  return call;
}

/** Shared, never mutated: a call kind without guardrails or request intercepts (scopes). */
export const NO_STAGES: readonly never[] = [];

/**
 * One traced call: a scope, a tool call, an LLM call or a stream. Every kind has the same
 * lifecycle, driven by `runCall` (or, for a stream whose consumer drives the execution, by
 * `openCall` and then the stream itself): guardrails → request intercepts → `open` (the start
 * event) → `run` (the execution chain around the caller's function) → `close` (the OK end,
 * including a suspended tool's) or `fail` (the failed end, cancelled or not).
 */
export interface Call<I, H, O, R = O> extends CallPlace {
  kind: CallKind;
  /** The scope, tool name or LLM route: what guardrail events and the rejection mark name. */
  name: string;
  input: I;
  metadata: Json;
  /** The caller's signal; undefined when it gave none (there is nothing to race then). */
  signal: AbortSignal | undefined;
  guardrails: readonly RegistryEntry<Guardrail<I>>[];
  requestIntercepts: readonly RegistryEntry<RequestIntercept<I>>[];
  /** Creates the handle and emits the start from the intercepted input. */
  open(input: I): H;
  /** The execution chain around the caller's function. */
  run(handle: H, input: I): O | Promise<O> | PromiseLike<O>;
  /**
   * Emits the successful end (and whatever follows it); returns what the caller gets, else the
   * output itself. A close that throws rejects the call as it is (`fail` is not called for it).
   */
  close(handle: H, output: O): R | void;
  /**
   * Emits the failed end; `cancelled` when the signal aborted first. `endData` is what the
   * function's `CallFailure` said the end records (undefined: whatever the kind records).
   */
  fail(handle: H, error: unknown, cancelled: boolean, endData?: Json): void;
}

/**
 * The one skeleton of every call: conditional guardrails (each a `guardrail`
 * scope pair; a rejection adds a mark named after the call and emits no call events) → request
 * intercepts (`breakChain` stops them) → open → execution chain → close. An abort ends the call
 * once, with the kind's cancellation message, and rejects with the abort reason.
 *
 * Without guardrails or request intercepts the call opens synchronously, and the chain's result
 * is chained once (`then`) rather than awaited in async functions: where AsyncLocalStorage runs on
 * async hooks (Node 22) every promise costs hook calls while one is active, and this runs per call.
 */
export function runCall<I, H, O, R = O>(core: RuntimeCore, call: Call<I, H, O, R>): Promise<R> {
  if (call.guardrails.length > 0 || call.requestIntercepts.length > 0) {
    return openCall(core, call).then(({ handle, input }) => executeCall(core, call, handle, input));
  }
  let handle: H;
  try {
    handle = call.open(call.input);
  } catch (error) {
    return Promise.reject(error);
  }
  return executeCall(core, call, handle, call.input);
}

function executeCall<I, H, O, R>(core: RuntimeCore, call: Call<I, H, O, R>, handle: H, input: I): Promise<R> {
  const signal = call.signal;
  let value: O | Promise<O> | PromiseLike<O>;
  try {
    if (signal?.aborted === true) throw CANCELLED;
    value = call.run(handle, input);
  } catch (error) {
    return Promise.reject(failCall(core, call, handle, error));
  }
  if (signal === undefined && !isThenable(value)) {
    try {
      return Promise.resolve(closeCall(call, handle, value));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  // Without a signal there is nothing to race: raceAbort hands back the value's own promise.
  const settled = raceAbort(Promise.resolve(value), signal);
  return settled.then(
    (output) => closeCall(call, handle, output),
    (error: unknown) => {
      throw failCall(core, call, handle, error);
    },
  );
}

function closeCall<I, H, O, R>(call: Call<I, H, O, R>, handle: H, output: O): R {
  const result = call.close(handle, output);
  return (result === undefined ? output : result) as R;
}

/**
 * Emits the failed end; returns what the call rejects with (the abort reason when cancelled). A
 * `CallFailure` is unwrapped here: the call fails and rejects with its cause, its end records the
 * failure's data. Whatever recording the end throws is counted, never rejected with instead.
 */
function failCall<I, H, O, R>(core: RuntimeCore, call: Call<I, H, O, R>, handle: H, error: unknown): unknown {
  const cancelled = error === CANCELLED;
  const failure = isCallFailure(error) ? error : undefined;
  recordWhileFailing(core.diagnostics, `${call.kind} ${call.name}`, () => {
    if (failure === undefined) call.fail(handle, error, cancelled);
    else call.fail(handle, failure.cause, cancelled, failure.endData);
  });
  if (failure !== undefined) return failure.cause;
  return cancelled ? (call.signal?.reason ?? new Error(cancellationMessage(call.kind))) : error;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/**
 * The skeleton's first half, shared with streams (whose execution the consumer drives):
 * guardrails → request intercepts → open. Resolves with the handle and the intercepted input.
 */
export async function openCall<I, H>(
  core: RuntimeCore,
  call: Pick<
    Call<I, H, unknown, unknown>,
    "kind" | "name" | "input" | "stack" | "parentUuid" | "metadata" | "guardrails" | "requestIntercepts" | "open"
  >,
): Promise<{ handle: H; input: I }> {
  if (call.guardrails.length > 0) await runGuardrails(core, call);
  let input = call.input;
  for (const intercept of call.requestIntercepts) {
    input = await intercept.callback(call.name, input);
    if (intercept.breakChain) break;
  }
  return { handle: call.open(input), input };
}

async function runGuardrails<I>(
  core: RuntimeCore,
  call: Pick<Call<I, unknown, unknown, unknown>, "kind" | "name" | "input" | "stack" | "parentUuid" | "metadata" | "guardrails">,
): Promise<void> {
  const { stack, name, parentUuid, metadata } = call;
  const kind = call.kind === "tool" ? GUARDRAIL_KIND_TOOL : GUARDRAIL_KIND_LLM;
  for (const guardrail of call.guardrails) {
    const startUs = core.nowUs();
    const uuid = core.idFor(startUs, undefined);
    const scope: ScopeShape = { uuid, name: guardrail.name, category: "guardrail", parentUuid, attributes: [] };
    // The input itself (tool args, the LLM request) is never put in guardrail events.
    core.emitScope(stack, scope, "start", startUs, { data: { kind, target_name: name }, metadata, profile: null });
    let reason: unknown;
    try {
      reason = await guardrail.callback(name, call.input);
    } catch (error) {
      recordWhileFailing(core.diagnostics, `guardrail ${guardrail.name}`, () =>
        core.emitScope(stack, scope, "end", core.endTime(startUs, undefined), {
          data: { allowed: false, error: thrownMessage(error) },
          metadata,
          profile: null,
        }),
      );
      throw error; // fail closed: no call events
    }
    if (typeof reason === "string") {
      const endUs = core.endTime(startUs, undefined);
      core.emitScope(stack, scope, "end", endUs, {
        data: { allowed: false, rejected: true, rejection_reason: reason },
        metadata,
        profile: null,
      });
      core.emitMark(stack, {
        uuid: core.newId(),
        parentUuid,
        timestampUs: endUs + 1,
        name,
        category: null,
        profile: null,
        data: { rejected: true, rejection_reason: reason },
        dataSchema: null,
        metadata,
      });
      throw new GuardrailRejectedError(guardrail.name, reason);
    }
    core.emitScope(stack, scope, "end", core.endTime(startUs, undefined), {
      data: { allowed: true, rejected: false },
      metadata,
      profile: null,
    });
  }
}
