import { createHash } from "node:crypto";

// One mapping from event ids to OpenTelemetry ids, shared by the runtime (the active OTel span,
// outgoing traceparent headers) and the exporters, so both name a span by the same ids.

const HEX32 = /^[0-9a-f]{32}$/;
const cache = new Map<string, string>();
/** The last id otelSpanIdHex found canonical: its trace id (a trace root's) then skips the check. */
let lastCanonical = "";

/**
 * The 16 bytes of an event id as 32 lowercase hex digits. Foreign producers sometimes use
 * non-uuid ids (e.g. `root-001`); those are hashed so they still map to stable, valid ids.
 */
export function otelIdHex(id: string): string {
  // fast path: the runtime's own lowercase canonical uuids (all-zero span ids take the hashed path)
  if (id === lastCanonical || (id.length === 36 && isCanonical(id) && !id.endsWith("0000-000000000000"))) {
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

/**
 * `otelIdHex(id).slice(16)`, a span id, without building the trace id's 32 digits: a span whose
 * trace id is its parent's needs only these.
 */
export function otelSpanIdHex(id: string): string {
  if (id.length === 36 && isCanonical(id) && !id.endsWith("0000-000000000000")) {
    lastCanonical = id;
    return id.slice(19, 23) + id.slice(24);
  }
  return otelIdHex(id).slice(16);
}

/** 1 at the char codes of lowercase hex digits: one table read per character is cheaper than range tests. */
const LOWER_HEX = new Uint8Array(128);
for (const digit of "0123456789abcdef") LOWER_HEX[digit.charCodeAt(0)] = 1;

/** Lowercase 8-4-4-4-12 hex (checked by char codes: this runs for every span). */
function isCanonical(id: string): boolean {
  if (id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45) return false;
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    const c = id.charCodeAt(i);
    if (c > 127 || LOWER_HEX[c] === 0) return false;
  }
  return true;
}
