/**
 * The ratio half of a tail-sampling decision, a function of the trace id alone, so that every
 * process holding a part of one trace (a run resumed elsewhere, a service called with the trace's
 * `traceparent`) keeps or drops its part alike without talking to the others.
 *
 * It reads the trace id as OpenTelemetry's consistent probability sampling does: the last 56 bits
 * (14 hex digits) are the trace's randomness R, and a trace is kept at ratio p when
 * R >= (1 - p) · 2^56. Relaytrace's trace ids come from uuid v7 roots, whose last 62 bits are
 * random; W3C trace ids of other tracers are random there too (level 2 makes it a requirement).
 */

const RANDOM_BITS = 56n;
const SPACE = 1n << RANDOM_BITS;
const RANDOM_HEX = /^[0-9a-f]{14}$/;

/** The threshold below which randomness is dropped at `ratio` (0 keeps nothing, 1 everything). */
export function ratioThreshold(ratio: number): bigint {
  if (ratio >= 1) return 0n;
  if (ratio <= 0) return SPACE;
  // 2^56 · (1 - p) in doubles is exact to the last few of 56 bits: below any ratio an app names.
  return SPACE - BigInt(Math.round(ratio * 2 ** 56));
}

/** Whether the trace with the 32-hex-digit id `traceId` is kept at `threshold` (see `ratioThreshold`). */
export function keptByRatio(traceId: string, threshold: bigint): boolean {
  if (threshold === 0n) return true;
  if (threshold === SPACE) return false;
  const random = traceId.slice(-14).toLowerCase();
  // Every trace id relaytrace derives is 32 hex digits; anything else is kept rather than guessed at.
  if (!RANDOM_HEX.test(random)) return true;
  return BigInt(`0x${random}`) >= threshold;
}
