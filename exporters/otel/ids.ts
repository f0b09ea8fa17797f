import { createHash } from "node:crypto";
import type { HrTime } from "@opentelemetry/api";

const HEX32 = /^[0-9a-f]{32}$/;
const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const cache = new Map<string, string>();

/**
 * The 16 bytes of an event id as 32 lowercase hex digits. Foreign producers sometimes use
 * non-uuid ids (e.g. `root-001`); those are hashed so they still map to stable, valid ids.
 */
export function idHex(id: string): string {
  // fast path: the runtime's own lowercase canonical uuids (all-zero span ids take the hashed path)
  if (id.length === 36 && CANONICAL.test(id) && !id.endsWith("0000-000000000000")) {
    return id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
  }
  const plain = id.replace(/-/g, "").toLowerCase();
  if (HEX32.test(plain) && !/^0{16}/.test(plain.slice(16))) return plain;
  let hashed = cache.get(id);
  if (hashed === undefined) {
    hashed = createHash("sha256").update(id).digest("hex").slice(0, 32);
    if (cache.size > 4096) cache.clear();
    cache.set(id, hashed);
  }
  return hashed;
}

/** Trace id derived from the trace-root uuid (§1.2). */
export function traceIdFromUuid(uuid: string): string {
  return idHex(uuid);
}

/** Span id: the last 8 bytes of the uuid (§1.2). */
export function spanIdFromUuid(uuid: string): string {
  return idHex(uuid).slice(16);
}

/** Epoch microseconds → exact `[seconds, nanos]`. */
export function hrTimeFromMicros(us: number): HrTime {
  const seconds = Math.floor(us / 1_000_000);
  return [seconds, (us - seconds * 1_000_000) * 1000];
}
