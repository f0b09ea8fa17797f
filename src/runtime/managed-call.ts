import type { Json } from "../events/json.js";
import type { ScopeStack } from "../events/scope-stack.js";
import { GUARDRAIL_KIND_LLM, GUARDRAIL_KIND_TOOL } from "../events/wire-names.js";
import { CANCELLED, neverAborted, raceAbort } from "./abort.js";
import { cancellationMessage, type ManagedKind } from "./cancellation.js";
import { GuardrailRejectedError } from "./errors.js";
import { thrownMessage } from "./event-factory.js";
import type { RegistryEntry } from "./registry.js";
import type { RuntimeCore, ScopeShape } from "./runtime-core.js";

export { cancellationMessage, type ManagedKind };

type Guardrail<I> = (name: string, input: I) => unknown;
type RequestIntercept<I> = (name: string, input: I) => I | Promise<I>;

/** The parts of one managed call that differ between tools and LLM calls. */
export interface ManagedCall<I, H, O, R = O> {
  kind: ManagedKind;
  /** The tool name or the LLM route: what guardrail events and the rejection mark name. */
  name: string;
  input: I;
  stack: ScopeStack;
  parentUuid: string;
  metadata: Json;
  signal: AbortSignal;
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
  /** Emits the failed end; `cancelled` when the signal aborted first. */
  fail(handle: H, error: unknown, cancelled: boolean): void;
}

/**
 * The one skeleton of managed tool and LLM calls: conditional guardrails (each a `guardrail`
 * scope pair; a rejection adds a mark named after the call and emits no call events) → request
 * intercepts (`breakChain` stops them) → open → execution chain → close. An abort ends the call
 * once, with the kind's cancellation message, and rejects with the abort reason.
 *
 * Without guardrails or request intercepts the call opens synchronously, and the chain's result
 * is chained once (`then`) rather than awaited in async functions: on Node 20 every promise
 * costs async-hook calls while an AsyncLocalStorage is active, and this runs per call.
 */
export function runManagedCall<I, H, O, R = O>(core: RuntimeCore, call: ManagedCall<I, H, O, R>): Promise<R> {
  if (call.guardrails.length > 0 || call.requestIntercepts.length > 0) {
    return openManagedCall(core, call).then(({ handle, input }) => executeManagedCall(call, handle, input));
  }
  let handle: H;
  try {
    handle = call.open(call.input);
  } catch (error) {
    return Promise.reject(error);
  }
  return executeManagedCall(call, handle, call.input);
}

function executeManagedCall<I, H, O, R>(call: ManagedCall<I, H, O, R>, handle: H, input: I): Promise<R> {
  const signal = call.signal;
  let value: O | Promise<O> | PromiseLike<O>;
  try {
    if (signal.aborted) throw CANCELLED;
    value = call.run(handle, input);
  } catch (error) {
    return Promise.reject(failManagedCall(call, handle, error));
  }
  if (signal === neverAborted() && !isThenable(value)) {
    try {
      return Promise.resolve(closeManagedCall(call, handle, value));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  // Without a signal there is nothing to race: chain on the value itself (no extra promise).
  const settled = signal === neverAborted() ? Promise.resolve(value) : raceAbort(Promise.resolve(value), signal);
  return settled.then(
    (output) => closeManagedCall(call, handle, output),
    (error: unknown) => {
      throw failManagedCall(call, handle, error);
    },
  );
}

function closeManagedCall<I, H, O, R>(call: ManagedCall<I, H, O, R>, handle: H, output: O): R {
  const result = call.close(handle, output);
  return (result === undefined ? output : result) as R;
}

/** Emits the failed end; returns what the call rejects with (the abort reason when cancelled). */
function failManagedCall<I, H, O, R>(call: ManagedCall<I, H, O, R>, handle: H, error: unknown): unknown {
  const cancelled = error === CANCELLED;
  call.fail(handle, error, cancelled);
  return cancelled ? (call.signal.reason ?? new Error(cancellationMessage(call.kind))) : error;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/**
 * The skeleton's first half, shared with managed streams (whose execution the consumer drives):
 * guardrails → request intercepts → open. Resolves with the handle and the intercepted input.
 */
export async function openManagedCall<I, H>(
  core: RuntimeCore,
  call: Pick<
    ManagedCall<I, H, unknown, unknown>,
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
  call: Pick<ManagedCall<I, unknown, unknown, unknown>, "kind" | "name" | "input" | "stack" | "parentUuid" | "metadata" | "guardrails">,
): Promise<void> {
  const { stack, name, parentUuid, metadata } = call;
  const kind = call.kind === "tool" ? GUARDRAIL_KIND_TOOL : GUARDRAIL_KIND_LLM;
  for (const guardrail of call.guardrails) {
    const scope: ScopeShape = { uuid: core.newId(), name: guardrail.name, category: "guardrail", parentUuid, attributes: [] };
    const startUs = core.nowUs();
    // The input itself (tool args, the LLM request) is never put in guardrail events.
    core.emitScope(stack, scope, "start", startUs, { data: { kind, target_name: name }, metadata, profile: null });
    let reason: unknown;
    try {
      reason = await guardrail.callback(name, call.input);
    } catch (error) {
      core.emitScope(stack, scope, "end", core.endTime(startUs, undefined), {
        data: { allowed: false, error: thrownMessage(error) },
        metadata,
        profile: null,
      });
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
