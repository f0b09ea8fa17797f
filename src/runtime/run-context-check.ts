import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { RunContext } from "../events/run-context.js";
import { RelaytraceError } from "./errors.js";
import { toJsonSafe } from "./json-safe.js";
import { declareOptions, is } from "../events/option-spec.js";
/** Ids and tags are labels, not payloads: long ones are a mistake (a whole message as a session id). */
const MAX_LABEL = 256;

function invalid(field: string, what: string): RelaytraceError {
  return new RelaytraceError("invalid_argument", `withContext: ${field} must be ${what}`);
}

const labelCheck = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_LABEL
    ? undefined
    : `a non-empty string of at most ${MAX_LABEL} characters`;

const RUN_CONTEXT = declareOptions<RunContext>(
  "withContext",
  { sessionId: labelCheck, userId: labelCheck, tags: is.list, metadata: is.jsonObject },
  { error: (message) => new RelaytraceError("invalid_argument", message) },
);

function label(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LABEL) {
    throw invalid(field, `a non-empty string of at most ${MAX_LABEL} characters`);
  }
  return value;
}

/** The checked, frozen copy of a `withContext` argument; a wrong field is a `RelaytraceError` naming it. */
export function checkRunContext(context: unknown): RunContext {
  if (typeof context !== "object" || context === null || Array.isArray(context)) throw invalid("the context", "an object");
  RUN_CONTEXT.check(context);
  const c = context as Record<string, unknown>;
  const run: RunContext = {};
  if (c.sessionId !== undefined) run.sessionId = label(c.sessionId, "sessionId");
  if (c.userId !== undefined) run.userId = label(c.userId, "userId");
  if (c.tags !== undefined) {
    if (!Array.isArray(c.tags)) throw invalid("tags", "an array of strings");
    run.tags = Object.freeze(c.tags.map((tag, i) => label(tag, `tags[${i}]`)));
  }
  if (c.metadata !== undefined) {
    if (!isJsonObject(c.metadata as Json)) throw invalid("metadata", "a JSON object");
    run.metadata = toJsonSafe(c.metadata, undefined, true) as JsonObject;
  }
  return Object.freeze(run);
}
