// Pure helpers for the targets table: each target is the median of per-round ratios (measured side
// and its reference in the same round), with the spread (min–max over rounds) and met / not met.
import { median } from "./stats.mjs";

/**
 * Per-round ratios a[i] / b[i] of two equally long sample lists (round i of each side), rounds
 * where the reference is not positive left out (no ratio can be read from them).
 */
export function perRoundRatios(a, b) {
  const out = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (b[i] > 0 && Number.isFinite(a[i] / b[i])) out.push(a[i] / b[i]);
  return out;
}

/**
 * { median, min, max, rounds, total, limit, met } of per-round ratios against `limit` (met: median
 * ≤ limit); `total` is the number of rounds run (default: the ratios'), some of which may be unreadable.
 */
export function summarizeRatios(ratios, limit, total = ratios.length) {
  if (ratios.length === 0) return { median: NaN, min: NaN, max: NaN, rounds: 0, total, limit, met: undefined };
  const m = median(ratios);
  return { median: m, min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length, total, limit, met: m <= limit };
}

// Ratios under 0.1 (the NeMo Relay rows) keep a third digit.
const x = (v) => (Number.isFinite(v) ? `${v.toFixed(Math.abs(v) < 0.1 ? 3 : 2)}×` : "n/a");

/** One row of the targets table: [pair, median ratio, spread, target, verdict]. */
export function targetRow(label, s) {
  if (s.notMeasured) return [label, "—", "—", `≤ ${s.limit}×`, `not measured: ${s.notMeasured}`];
  if (s.invalid) return [label, x(s.median), "—", `≤ ${s.limit}×`, `INVALID: ${s.invalid}`];
  const verdict = s.met === undefined ? "no verdict (no readable round)" : s.met ? "met" : "not met";
  const rounds = s.total > s.rounds ? `${s.rounds} of ${s.total} rounds readable` : `${s.rounds} rounds`;
  return [label, x(s.median), `${x(s.min)}–${x(s.max)} (${rounds})`, `≤ ${s.limit}×`, verdict];
}
