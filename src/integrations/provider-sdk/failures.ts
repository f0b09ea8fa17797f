import type { Json, JsonObject } from "../../events/json.js";
import { META_ERROR_TYPE, META_EXCEPTION_TYPE } from "../../events/wire-names.js";
import type { RecordedCall } from "./recorded-call.js";

/**
 * How a wrapped SDK call's failure is recorded: the error the app gets (the SDK's own class), the
 * provider's status and error body as the end's data (as the loop's `ProviderHttpError` records
 * them), and an `error.type` on the loop's scale. An abort records the app's abort reason.
 */

/** `error.type` of an HTTP status, on the scale the loop's provider errors use. */
export function errorTypeOfStatus(status: number): string {
  if (status === 401 || status === 403) return "authentication";
  if (status === 429 || status === 500 || status === 502 || status === 503 || status === 504 || status === 529) return "retryable_status";
  if (status >= 400 && status < 500) return "invalid_request";
  return "upstream_error";
}

/** The class name of what was thrown (`BadRequestError`), when it says more than `Error`; never throws. */
function className(error: unknown): string | undefined {
  try {
    const name = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === "string" && name !== "" && name !== "Error" && name !== "Object" ? name : undefined;
  } catch {
    return undefined;
  }
}

function errorName(error: unknown): string | undefined {
  try {
    const name = (error as { name?: unknown } | null)?.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `error` is an abort: the signal's own reason, a DOMException `AbortError`, or an SDK's abort error class. */
export function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true) return true;
  const name = errorName(error);
  return name === "AbortError" || className(error) === "APIUserAbortError";
}

/** Ends `call` as cancelled: the app's abort reason when it gave one, else what the SDK threw. */
export function failAborted(
  call: RecordedCall,
  error: unknown,
  signal: AbortSignal | undefined,
  partial?: Json,
  metadata?: JsonObject,
): void {
  const reason: unknown = signal?.aborted === true && signal.reason !== undefined ? signal.reason : error;
  call.fail(reason, partial, { ...metadata, [META_ERROR_TYPE]: "cancelled" });
}

/** The status an SDK error carries (`error.status`), if it is an HTTP status. */
function statusOf(error: unknown): number | undefined {
  try {
    const status = (error as { status?: unknown } | null)?.status;
    return typeof status === "number" && status >= 100 && status < 600 ? status : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ends `call` with what an SDK threw. `bodyOf` reads the provider's error body from the SDK's
 * error (each SDK keeps it differently); an HTTP error records `{ status, body }`.
 */
export function failWithSdkError(
  call: RecordedCall,
  error: unknown,
  signal: AbortSignal | undefined,
  bodyOf: (error: unknown) => Json | undefined,
): void {
  if (isAbort(error, signal)) {
    failAborted(call, error, signal);
    return;
  }
  const metadata: JsonObject = {};
  const type = className(error);
  if (type !== undefined) metadata[META_EXCEPTION_TYPE] = type;
  const status = statusOf(error);
  if (status !== undefined) {
    metadata[META_ERROR_TYPE] = errorTypeOfStatus(status);
    let body: Json | undefined;
    try {
      body = bodyOf(error);
    } catch {
      body = undefined;
    }
    call.fail(error, { status, body: body ?? null }, metadata);
    return;
  }
  if (type === "APIConnectionTimeoutError") metadata[META_ERROR_TYPE] = "timeout";
  else if (type === "APIConnectionError") metadata[META_ERROR_TYPE] = "connection_error";
  call.fail(error, undefined, metadata);
}
