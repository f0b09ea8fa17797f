import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import { META_SESSION_ID, META_TAGS, META_USER_ID } from "../../src/events/wire-names.js";
import type { ProjectionName } from "./projection.js";

/**
 * The run context a start event carries (`runtime.withContext`: metadata `session_id`, `user_id`,
 * `tags`, and the context's entries) on every span, as each projection names it: OpenInference
 * `session.id`, `user.id` and `tag.tags` (its `metadata` attribute already holds the event's whole
 * metadata as JSON); gen_ai the conventions' `gen_ai.conversation.id` and the general `user.id`.
 * full keeps every metadata key as `<ns>.start.metadata.*` and the ids on the trace root (the
 * worked example it matches has no other key).
 */
export function writeRunContext(attrs: Attributes, projection: ProjectionName, metadata: Json): void {
  if (projection === "full" || !isJsonObject(metadata)) return;
  const session = metadata[META_SESSION_ID];
  const user = metadata[META_USER_ID];
  if (typeof user === "string" && user !== "") attrs["user.id"] = user;
  if (projection === "gen_ai") {
    if (typeof session === "string" && session !== "") attrs["gen_ai.conversation.id"] = session;
    return;
  }
  if (typeof session === "string" && session !== "") attrs["session.id"] = session;
  const tags = metadata[META_TAGS];
  if (Array.isArray(tags) && tags.length > 0 && tags.every((t) => typeof t === "string")) attrs["tag.tags"] = tags as string[];
}
