import { META_ERROR_TYPE, META_EXCEPTION_TYPE, META_STATUS_CODE, META_STATUS_DESCRIPTION } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import { ATOF_VERSION } from "../events/types.js";
import { redactUrlsInText } from "../wire/urls.js";
import { RelaytraceError } from "./errors.js";
import { cancellationMessage, type CallKind } from "./cancellation.js";
import { FrozenJson } from "./json-safe.js";

const FLAG = /^[a-z0-9._-]+$/;
// Frozen here, once per handle, rather than at each event's delivery.
const EMPTY = Object.freeze([]) as readonly string[] as string[];

/** Lowercase, sorted, deduplicated flags; a flag outside `[a-z0-9._-]+` is a TypeError. */
export function normalizeAttributes(attributes: readonly string[] | undefined): string[] {
  if (!attributes || attributes.length === 0) return EMPTY;
  for (const flag of attributes) {
    if (typeof flag !== "string" || !FLAG.test(flag)) {
      throw new TypeError(`attribute flag ${JSON.stringify(flag)} must match [a-z0-9._-]+`);
    }
  }
  if (attributes.length === 1) return Object.freeze([attributes[0]!]) as readonly string[] as string[];
  return Object.freeze([...new Set(attributes)].sort()) as readonly string[] as string[];
}

/** End metadata: end keys win; when either side is not an object, the end value replaces it. */
export function shallowMerge(base: Json, extra: Json | undefined): Json {
  if (extra === undefined) return base;
  if (isJsonObject(base) && isJsonObject(extra)) return { ...base, ...extra };
  if (base === null && isJsonObject(extra)) return { ...extra };
  return extra;
}

/** The end metadata of a successful managed call without metadata of its own: shared, never copied. */
const OK_ONLY = new FrozenJson<JsonObject>({ [META_STATUS_CODE]: "OK" });

/** `okMetadata` for an event field: the shared frozen constant when there is no base metadata. */
export function okEndMetadata(base: Json): Json | FrozenJson<JsonObject> {
  return base === null ? OK_ONLY : okMetadata(base);
}

export function okMetadata(base: Json): Json {
  if (base !== null && !isJsonObject(base)) return base;
  const out: JsonObject = { ...(base ?? {}), [META_STATUS_CODE]: "OK" };
  delete out[META_STATUS_DESCRIPTION];
  return out;
}

/**
 * The message of anything thrown, never throwing itself: an app may throw a Proxy, an object whose
 * `toString` throws, or an Error whose `message` getter throws, and telemetry must neither crash
 * on it nor replace the app's own error with one of its own.
 */
export function thrownMessage(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message: unknown = error.message;
      return typeof message === "string" ? message : String(message);
    }
    return String(error);
  } catch {
    return "[unreadable error]";
  }
}

/** The `name` of a thrown Error (not a RelaytraceError), else undefined; never throws. */
function thrownErrorName(error: unknown): string | undefined {
  try {
    if (!(error instanceof Error) || error instanceof RelaytraceError) return undefined;
    const name: unknown = error.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The error keys written on a failed managed end; caller-supplied error.type / exception.type win. */
export function errorMetadata(base: Json, error: unknown): Json {
  const out: JsonObject = isJsonObject(base) ? { ...base } : {};
  out[META_STATUS_CODE] = "ERROR";
  // An error message may name the endpoint it failed on: its userinfo and query values never reach an event.
  out[META_STATUS_DESCRIPTION] = redactUrlsInText(thrownMessage(error));
  if (out[META_ERROR_TYPE] === undefined) {
    out[META_ERROR_TYPE] = isRelaytraceError(error) ? (error as RelaytraceError).code : "internal_error";
  }
  if (out[META_EXCEPTION_TYPE] === undefined) {
    const name = thrownErrorName(error);
    if (name !== undefined) out[META_EXCEPTION_TYPE] = name;
  }
  return out;
}

function isRelaytraceError(error: unknown): boolean {
  try {
    return error instanceof RelaytraceError && typeof error.code === "string";
  } catch {
    return false;
  }
}

/** The end metadata of an aborted managed call, worded for its kind (no `error.type`). */
export function cancelledMetadata(base: Json, kind: CallKind): Json {
  const out: JsonObject = isJsonObject(base) ? { ...base } : {};
  out[META_STATUS_CODE] = "ERROR";
  out[META_STATUS_DESCRIPTION] = cancellationMessage(kind);
  return out;
}

export const atofVersion = ATOF_VERSION;
