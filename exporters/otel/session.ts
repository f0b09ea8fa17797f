import type { Attributes } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import { attributeKey } from "./flatten.js";

/**
 * Trace-root session identity (full and openinference only): `session.id`, `user.id`,
 * `<ns>.agent.kind` from metadata, `<ns>.session.instance_id` = the emitting stack's hidden root.
 */
export function writeSessionIdentity(attrs: Attributes, ns: string, metadata: Json, instanceId: string | undefined): void {
  if (isJsonObject(metadata)) {
    copyString(attrs, "session.id", metadata["session_id"]);
    copyString(attrs, "user.id", metadata["user_id"]);
    copyString(attrs, attributeKey(ns, "agent.kind"), metadata["agent_kind"]);
  }
  if (instanceId) attrs[attributeKey(ns, "session.instance_id")] = instanceId;
}

function copyString(attrs: Attributes, key: string, value: Json | undefined): void {
  if (typeof value === "string" && value !== "") attrs[key] = value;
  else if (typeof value === "number" && Number.isFinite(value)) attrs[key] = String(value);
}
