import { randomFillSync } from "node:crypto";

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const POOL_SIZE = 8 * 1024;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;

function randomBytes8(): number {
  if (poolOffset + 8 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 8;
  return at;
}

let lastMs = -1;
let counter = 0;

/**
 * RFC 9562 UUIDv7. The 12-bit `rand_a` field is a sub-millisecond counter, so the uuids one
 * process creates are strictly increasing even when the wall clock stands still or steps back.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs += 1; // borrow the next millisecond rather than repeat a value
    counter = 0;
  }
  const ms = lastMs;
  const hi = Math.floor(ms / 0x1000000); // upper 24 bits of the 48-bit time
  const lo = ms % 0x1000000;
  const at = randomBytes8();
  const b6 = 0x70 | (counter >> 8);
  const b7 = counter & 0xff;
  const b8 = 0x80 | (pool[at]! & 0x3f);
  return (
    HEX[(hi >> 16) & 0xff]! + HEX[(hi >> 8) & 0xff]! + HEX[hi & 0xff]! + HEX[(lo >> 16) & 0xff]! + "-" +
    HEX[(lo >> 8) & 0xff]! + HEX[lo & 0xff]! + "-" +
    HEX[b6]! + HEX[b7]! + "-" +
    HEX[b8]! + HEX[pool[at + 1]!]! + "-" +
    HEX[pool[at + 2]!]! + HEX[pool[at + 3]!]! + HEX[pool[at + 4]!]! + HEX[pool[at + 5]!]! + HEX[pool[at + 6]!]! + HEX[pool[at + 7]!]!
  );
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** The 32 hex digits of a uuid (no dashes, lowercase). */
export function uuidHex(uuid: string): string {
  return uuid.replace(/-/g, "").toLowerCase();
}

/** The OTel span id of a uuid: its last 8 bytes as 16 hex digits. */
export function spanIdOf(uuid: string): string {
  return uuidHex(uuid).slice(16);
}
