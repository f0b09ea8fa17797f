/**
 * The ratio half of a tail-sampling decision, a function of the trace id alone, so that every
 * process holding a part of one trace (a run resumed elsewhere, a service called with the trace's
 * `traceparent`) keeps or drops its part alike without talking to the others.
 *
 * It reads the trace id as OpenTelemetry's consistent probability sampling does: the last 56 bits
 * (14 hex digits) are the trace's randomness R, and a trace is kept at ratio p when
 * R >= (1 - p) · 2^56. Relaytrace's trace ids come from uuid v7 roots, whose last 62 bits are
 * random; W3C trace ids of other tracers are random there too (level 2 makes it a requirement).
 * R is compared as two 28-bit halves: exact, and no BigInt per trace.
 */
export interface RatioThreshold {
  readonly high: number;
  readonly low: number;
}

const HALF = 2 ** 28;
const KEEP_ALL: RatioThreshold = Object.freeze({ high: 0, low: 0 });
const KEEP_NONE: RatioThreshold = Object.freeze({ high: HALF, low: 0 });

/** The threshold below which randomness is dropped at `ratio` (0 keeps nothing, 1 everything). */
export function ratioThreshold(ratio: number): RatioThreshold {
  if (ratio >= 1) return KEEP_ALL;
  if (ratio <= 0) return KEEP_NONE;
  // 2^56 · (1 - p), rounded: doubles hold it to the last few of 56 bits, below any ratio an app names.
  const drop = 2 ** 56 - Math.round(ratio * 2 ** 56);
  const high = Math.floor(drop / HALF);
  return { high, low: drop - high * HALF };
}

/** Whether the trace with the 32-hex-digit id `traceId` is kept at `threshold` (see `ratioThreshold`). */
export function keptByRatio(traceId: string, threshold: RatioThreshold): boolean {
  if (threshold === KEEP_ALL) return true;
  if (threshold === KEEP_NONE) return false;
  const high = parseInt(traceId.slice(-14, -7), 16);
  const low = parseInt(traceId.slice(-7), 16);
  // Every trace id relaytrace derives is 32 hex digits; anything else is kept rather than guessed at.
  if (!(high >= 0 && low >= 0) || traceId.length !== 32) return true;
  return high > threshold.high || (high === threshold.high && low >= threshold.low);
}
