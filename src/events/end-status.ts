import { isJsonObject } from "./json.js";
import type { ScopeEvent } from "./types.js";
import { META_STATUS_CODE } from "./wire-names.js";

/** The `otel.status_code` an end event's metadata records ("OK", "ERROR", "UNSET"), when it records one. */
export function statusCodeOf(end: ScopeEvent): string | undefined {
  const code = isJsonObject(end.metadata) ? end.metadata[META_STATUS_CODE] : undefined;
  return typeof code === "string" ? code : undefined;
}
