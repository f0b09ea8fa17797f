import { EVENT_TIME, type EventTime } from "./types.js";
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

// Date#toISOString dominated event delivery in the benchmarks; events come in bursts within the
// same second, so the "YYYY-MM-DDTHH:MM:SS." part is cached per whole second, and the six
// fraction digits are two lookups (milliseconds, then microseconds with the closing `Z`).
let cachedSecond = Number.NaN;
let cachedPrefix = "";
const THREE_DIGITS: string[] = Array.from({ length: 1000 }, (_, n) => pad(n, 3));
const THREE_DIGITS_Z: string[] = THREE_DIGITS.map((digits) => `${digits}Z`);

/** Formats integer epoch microseconds as RFC 3339 with exactly six fraction digits and `Z`. */
export function formatTimestamp(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== cachedSecond) {
    cachedPrefix = `${new Date(second * 1000).toISOString().slice(0, 19)}.`; // 2026-03-01T12:00:00.
    cachedSecond = second;
  }
  const fraction = us - second * 1_000_000;
  const ms = Math.floor(fraction / 1000);
  return cachedPrefix + THREE_DIGITS[ms]! + THREE_DIGITS_Z[fraction - ms * 1000]!;
}

let parsedPrefix = "";
let parsedPrefixUs = 0;

/**
 * relaytrace's own form (`YYYY-MM-DDTHH:MM:SS.ffffffZ`): the seconds part is parsed once per
 * second and the fraction by digit arithmetic, since exporters read every event's timestamp.
 */
function parseCanonical(value: string): number | undefined {
  if (value.length !== 27 || value.charCodeAt(26) !== 90 || value.charCodeAt(19) !== 46) return undefined;
  let fraction = 0;
  for (let i = 20; i < 26; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    fraction = fraction * 10 + digit;
  }
  const prefix = value.slice(0, 19);
  if (prefix !== parsedPrefix) {
    const m = RFC3339.exec(`${prefix}Z`);
    if (!m) return undefined;
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    if (Number.isNaN(ms) || Number(m[2]) > 12 || Number(m[3]) > 31 || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60)
      return undefined;
    parsedPrefix = prefix;
    parsedPrefixUs = ms * 1000;
  }
  return parsedPrefixUs + fraction;
}

/** Parses either ATOF timestamp form into integer epoch microseconds; throws a TypeError on anything else. */
export function parseTimestamp(value: unknown): number {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw new TypeError("timestamp must be a safe integer number of Unix microseconds");
  }
  if (typeof value === "string") {
    const fast = parseCanonical(value);
    if (fast !== undefined) return fast;
    const m = RFC3339.exec(value);
    if (!m) throw new TypeError(`timestamp ${JSON.stringify(value)} is not RFC 3339`);
    const [, y, mo, d, h, mi, s, frac = "", zone] = m;
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) {
      throw new TypeError(`timestamp ${JSON.stringify(value)} is not a valid date`);
    }
    // More than six fraction digits are truncated, not rounded.
    const micros = Number((frac + "000000").slice(0, 6));
    let offsetMin = 0;
    if (zone !== "Z" && zone !== "z") {
      const sign = zone!.startsWith("-") ? -1 : 1;
      offsetMin = sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
    }
    return (ms - offsetMin * 60_000) * 1000 + micros;
  }
  throw new TypeError("timestamp must be an RFC 3339 string or a safe integer number of Unix microseconds");
}

/** Accepts the explicit timestamp forms of the runtime API: µs integer, Date, or RFC 3339 string. */
export function toMicros(value: number | Date | string): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms) || ms < 0) throw new TypeError("timestamp must be a safe integer number of Unix microseconds");
    return ms * 1000;
  }
  if (typeof value === "number" && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new TypeError("timestamp must be a safe integer number of Unix microseconds");
  }
  return parseTimestamp(value);
}

/** An event's time in integer epoch microseconds: what the runtime recorded when it built the event, else its timestamp parsed. */
export function eventMicros(event: { readonly timestamp: unknown; readonly [EVENT_TIME]?: EventTime }): number {
  const time = event[EVENT_TIME];
  if (time !== undefined && time.text === event.timestamp) return time.us;
  return parseTimestamp(event.timestamp);
}
