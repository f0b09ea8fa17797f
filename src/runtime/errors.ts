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
