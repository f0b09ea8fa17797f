import type { Json } from "../events/json.js";

/** The low-cardinality error classes relaytrace writes to `error.type`. */
export type RelaytraceErrorCode =
  | "already_exists"
  | "not_found"
  | "invalid_argument"
  | "scope_stack_empty"
  | "guardrail_rejected"
  | "connection_error"
  | "timeout"
  | "retryable_status"
  | "context_window"
  | "model_unavailable"
  | "authentication"
  | "invalid_request"
  | "upstream_error"
  | "internal_error";

export class RelaytraceError extends Error {
  readonly code: RelaytraceErrorCode;

  constructor(code: RelaytraceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RelaytraceError";
    this.code = code;
  }

  /**
   * What the end of a call this error fails records as its data; undefined (the default) records
   * none. A provider's HTTP error records the status and body it answered with.
   */
  get endData(): Json | undefined {
    return undefined;
  }
}

/**
 * A call's function failing with `cause` while saying what the failed end records as its data
 * (the agent loop's error result for a tool that threw). The runtime unwraps it where the
 * function returns: the call fails, and rejects, with `cause` itself, and intercepts around the
 * function see `cause` too. Internal to relaytrace's own layers.
 */
export class CallFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly endData: Json,
  ) {
    super("call failed", { cause });
    this.name = "CallFailure";
  }
}

/**
 * Whether `error` is a `CallFailure`. Never throws: `instanceof` on a hostile Proxy (one whose
 * getPrototypeOf trap throws) would, and an app may throw anything.
 */
export function isCallFailure(error: unknown): error is CallFailure {
  try {
    return error instanceof CallFailure;
  } catch {
    return false;
  }
}

/** The end data `error` carries for the failed end of its call, if any. Never throws. */
export function endDataOf(error: unknown): Json | undefined {
  try {
    return error instanceof CallFailure || error instanceof RelaytraceError ? error.endData : undefined;
  } catch {
    return undefined;
  }
}

/** A conditional guardrail refused the call; `reason` is what the guardrail returned. */
export class GuardrailRejectedError extends RelaytraceError {
  readonly reason: string;
  readonly guardrail: string;

  constructor(guardrail: string, reason: string) {
    super("guardrail_rejected", reason);
    this.name = "GuardrailRejectedError";
    this.reason = reason;
    this.guardrail = guardrail;
  }
}
