import { randomFillSync } from "node:crypto";
import { otelIdHex } from "./otel-ids.js";

// "-7ccc-" for each value of the 12-bit counter (version nibble 7), from a lookup table.
const COUNTER_PART: string[] = Array.from({ length: 4096 }, (_, c) => `-7${c.toString(16).padStart(3, "0")}-`);
const HEX_CODES = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

// The random tails ("vxxx-xxxxxxxxxxxx", 62 random bits after the RFC variant bits `10`) are
// written as text for a whole pool of ids at once and decoded into one string: an id is then its
// time part, its counter part and a slice of that string, three pieces instead of a dozen.
const TAIL_CHARS = 17;
const POOL_IDS = 512;
const randomBytes = new Uint8Array(POOL_IDS * 8);
const tailBytes = Buffer.allocUnsafe(POOL_IDS * TAIL_CHARS);
let tails = "";
let nextTail = POOL_IDS;

function refillTails(): void {
  randomFillSync(randomBytes);
  let out = 0;
  for (let r = 0; r < randomBytes.length; r += 8) {
    for (let k = 0; k < 8; k++) {
      if (k === 2) tailBytes[out++] = 0x2d; // "-"
      const byte = k === 0 ? (randomBytes[r]! & 0x3f) | 0x80 : randomBytes[r + k]!;
      tailBytes[out++] = HEX_CODES[byte >> 4]!;
      tailBytes[out++] = HEX_CODES[byte & 15]!;
    }
  }
  tails = tailBytes.toString("latin1", 0, out);
  nextTail = 0;
}

let lastMs = -1;
let counter = 0;
let prefixMs = -1;
let prefix = "";

/**
 * RFC 9562 UUIDv7. The 12-bit `rand_a` field is a sub-millisecond counter, so the uuids one
 * process creates are strictly increasing even when the wall clock stands still or steps back.
 * The time part is formatted once per millisecond.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs += 1; // borrow the next millisecond rather than repeat a value
    counter = 0;
  }
  if (lastMs !== prefixMs) {
    const hex = lastMs.toString(16).padStart(12, "0");
    prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
    prefixMs = lastMs;
  }
  if (nextTail === POOL_IDS) refillTails();
  const at = nextTail++ * TAIL_CHARS;
  return prefix + COUNTER_PART[counter]! + tails.slice(at, at + TAIL_CHARS);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Whether `uuid` has the 8-4-4-4-12 dash layout (checked by char code: this runs per traced call). */
function hasUuidLayout(uuid: string): boolean {
  return (
    uuid.length === 36 &&
    uuid.charCodeAt(8) === 45 &&
    uuid.charCodeAt(13) === 45 &&
    uuid.charCodeAt(18) === 45 &&
    uuid.charCodeAt(23) === 45
  );
}

/** The 32 hex digits of a uuid (no dashes, lowercase). */
export function uuidHex(uuid: string): string {
  if (hasUuidLayout(uuid)) {
    const hex = uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(14, 18) + uuid.slice(19, 23) + uuid.slice(24);
    if (!hex.includes("-")) return hex.toLowerCase();
  }
  return uuid.replace(/-/g, "").toLowerCase();
}

/**
 * The OTel span id of an event id, as the exporters write it: a uuid's last 8 bytes as 16 hex digits (other ids are
 * hashed, see otelIdHex).
 */
export function spanIdOf(uuid: string): string {
  return otelIdHex(uuid).slice(16);
}
