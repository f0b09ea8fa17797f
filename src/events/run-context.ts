import { isJsonObject, type Json, type JsonObject } from "./json.js";
import { META_SESSION_ID, META_TAGS, META_USER_ID } from "./wire-names.js";

/**
 * Who and what a piece of work belongs to (`runtime.withContext`): every scope, call and mark
 * started inside carries it in its metadata. Nested contexts merge, the inner one winning.
 */
export interface RunContext {
  sessionId?: string;
  userId?: string;
  /** Labels to filter runs by; nested contexts add theirs. */
  tags?: readonly string[];
  /** JSON entries written into each event's metadata (an event's own keys win). */
  metadata?: JsonObject;
}

/** `inner` on top of `outer`: inner ids and metadata entries win, tags are the union in order. */
export function mergeRunContext(outer: RunContext | undefined, inner: RunContext): RunContext {
  if (outer === undefined) return inner;
  const merged: RunContext = { ...outer, ...inner };
  if (outer.tags !== undefined && inner.tags !== undefined) merged.tags = [...new Set([...outer.tags, ...inner.tags])];
  if (outer.metadata !== undefined && inner.metadata !== undefined) merged.metadata = { ...outer.metadata, ...inner.metadata };
  return merged;
}

/**
 * An event's metadata with the run context written in: `session_id`, `user_id`, `tags` and the
 * context's entries, under the event's own keys (which win). Metadata that is not an object is
 * the caller's own shape and is left alone.
 */
export function metadataWithRunContext(metadata: unknown, run: RunContext): unknown {
  if (metadata !== null && metadata !== undefined && !isJsonObject(metadata as Json)) return metadata;
  const out: JsonObject = { ...run.metadata };
  if (run.sessionId !== undefined) out[META_SESSION_ID] = run.sessionId;
  if (run.userId !== undefined) out[META_USER_ID] = run.userId;
  if (run.tags !== undefined) out[META_TAGS] = [...run.tags];
  // Spread defines each key: an own `__proto__` key stays a key (assignment would set the prototype).
  return metadata === null || metadata === undefined ? out : { ...out, ...(metadata as JsonObject) };
}
