import { RelaytraceError } from "../../runtime/errors.js";
import type { Json } from "../../events/json.js";

/**
 * Errors raised by the provider layer. Each carries a `code` from the runtime's error
 * vocabulary so a failed `executeLlm` records a meaningful `error.type`
 * (they are RelaytraceErrors, which the runtime reads `code` from).
 */
export type ProviderErrorCode =
  "connection_error" | "timeout" | "retryable_status" | "authentication" | "invalid_request" | "upstream_error";

/** Base of every provider-layer failure a run can reject with; `code` says which kind, `retryable` whether it was retried. */
export class ProviderError extends RelaytraceError {
  declare readonly code: ProviderErrorCode;
  /** whether the transport would retry this failure (when attempts remain) */
  readonly retryable: boolean;

  constructor(code: ProviderErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProviderError";
    this.retryable = options.retryable ?? false;
  }
}

const BODY_PREVIEW = 500;

function codeForStatus(status: number): ProviderErrorCode {
  if (status === 401 || status === 403) return "authentication";
  if (isRetryableStatus(status)) return "retryable_status";
  if (status >= 400 && status < 500) return "invalid_request";
  return "upstream_error";
}

/** Statuses worth another attempt: rate limits, gateway/server hiccups, and Anthropic's 529 "overloaded" (a 503 in all but number). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504 || status === 529;
}

/** The provider answered with a non-2xx status (after any retries); `status` and the full `body` are kept for the caller. */
export class ProviderHttpError extends ProviderError {
  readonly status: number;
  /** the response body text, as received */
  readonly body: string;

  constructor(status: number, body: string) {
    super(codeForStatus(status), `LLM ${status}: ${body.slice(0, BODY_PREVIEW)}`, {
      retryable: isRetryableStatus(status),
    });
    this.name = "ProviderHttpError";
    this.status = status;
    this.body = body;
  }

  /** The failed llm end records the provider's answer (status, body as JSON when it is JSON), so a replay can reproduce the failure. */
  override get endData(): Json {
    return { status: this.status, body: bodyJson(this.body) };
  }
}

/** An error body as JSON when it is JSON, else its text. */
function bodyJson(body: string): Json {
  try {
    return JSON.parse(body) as Json;
  } catch {
    return body;
  }
}

/** The provider answered 2xx but the reply is not what the dialect promises (not JSON, missing fields...). */
export class ProviderResponseError extends ProviderError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("upstream_error", message, options);
    this.name = "ProviderResponseError";
  }
}

/** Connection refused/reset, a reply cut off mid-body, or a stream closed before its end marker. */
export class ProviderConnectionError extends ProviderError {
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("connection_error", message, options);
    this.name = "ProviderConnectionError";
  }
}

/** The transport's own `timeoutMs` deadline passed. Never retried. */
export class ProviderTimeoutError extends ProviderError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super("timeout", `LLM request timed out after ${timeoutMs} ms`);
    this.name = "ProviderTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** Short, single-line preview of a body for error messages (the wire layer's, re-exported for the transport). */
export { preview } from "../../wire/read.js";
