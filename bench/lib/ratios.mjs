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

/** { median, min, max, rounds, met } of per-round ratios against `limit` (met: median ≤ limit). */
export function summarizeRatios(ratios, limit) {
  if (ratios.length === 0) return { median: NaN, min: NaN, max: NaN, rounds: 0, limit, met: undefined };
  const m = median(ratios);
  return { median: m, min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length, limit, met: m <= limit };
}

const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "n/a");

/** One row of the targets table: [pair, median ratio, spread, target, verdict]. */
export function targetRow(label, s) {
  if (s.notMeasured) return [label, "—", "—", `≤ ${s.limit}×`, `not measured: ${s.notMeasured}`];
  if (s.invalid) return [label, x(s.median), "—", `≤ ${s.limit}×`, `INVALID: ${s.invalid}`];
  const verdict = s.met === undefined ? "no verdict (no readable round)" : s.met ? "met" : "not met";
  return [label, x(s.median), `${x(s.min)}–${x(s.max)} (${s.rounds} rounds)`, `≤ ${s.limit}×`, verdict];
}
