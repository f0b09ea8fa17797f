// Pure helpers for the targets table: each target is the median of per-round ratios (measured side
// and its reference in the same round), reported with a distribution-free confidence interval of
// that median, and met / not met. A pair whose interval still holds its target runs more rounds
// (extraRounds) until the interval leaves the target or a cap is reached.
import { median } from "./stats.mjs";

/** The confidence the reported interval aims for. */
export const CONFIDENCE = 0.95;

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
 * A confidence interval of the median from order statistics, which assumes nothing about the
 * rounds' distribution (only that they are independent): with n rounds sorted, [x(k), x(n−k+1)]
 * holds the true median unless k or more rounds fall on one side of it, a Binomial(n, ½) tail.
 * k is the largest rank whose coverage, 1 − 2·P(B ≤ k − 1), is still ≥ `confidence`; unlike
 * min–max, the interval narrows as rounds are added. Under 6 rounds no rank reaches 95 %: the
 * interval is then min–max and `coverage` says how much it holds (5 rounds: 93.8 %).
 */
export function medianInterval(values, confidence = CONFIDENCE) {
  const n = values.length;
  if (n === 0) return { lo: NaN, hi: NaN, coverage: 0 };
  const sorted = [...values].sort((p, q) => p - q);
  // cdf[j] = P(B ≤ j) for B ~ Binomial(n, ½), built term by term (n stays in the hundreds at most).
  let term = 0.5 ** n;
  let cdf = term;
  let k = 1;
  let coverage = 1 - 2 * term;
  for (let j = 1; j < n / 2; j++) {
    term *= (n - j + 1) / j;
    const next = 1 - 2 * (cdf + term);
    if (next < confidence) break;
    cdf += term;
    k = j + 1;
    coverage = next;
  }
  return { lo: sorted[k - 1], hi: sorted[n - k], coverage };
}

/**
 * { median, lo, hi, coverage, min, max, rounds, total, limit, met } of per-round ratios against
 * `limit` (met: median ≤ limit; lo–hi: the median's confidence interval; min–max kept as detail);
 * `total` is the number of rounds run (default: the ratios'), some of which may be unreadable.
 */
export function summarizeRatios(ratios, limit, total = ratios.length) {
  if (ratios.length === 0)
    return { median: NaN, lo: NaN, hi: NaN, coverage: 0, min: NaN, max: NaN, rounds: 0, total, limit, met: undefined };
  const m = median(ratios);
  const { lo, hi, coverage } = medianInterval(ratios);
  return {
    median: m,
    lo,
    hi,
    coverage,
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    rounds: ratios.length,
    total,
    limit,
    met: m <= limit,
  };
}

/** The interval leaves the target out: more rounds would not change the verdict, at the stated confidence. */
export const decided = (s) => s.rounds > 0 && (s.hi < s.limit || s.lo > s.limit);

/**
 * The extra-rounds rule of one pair. After its first rounds and after each batch, `next(ratios,
 * roundsRun, secondsPerRound)` says how many more rounds to run: none once the pair is decided,
 * once `maxRounds` have run, or when the next batch (estimated from the rounds so far) would take
 * its extra time past `seconds` (a number, or a function of the first rounds' time, read at the
 * first call). `outcome()` says how it ended: { added, stop: "decided" | "rounds cap" | "time
 * budget" | undefined (no extra round was needed), seconds spent on extra rounds }.
 */
export function extraRounds({ limit, batch, maxRounds, seconds }, now = () => Date.now() / 1000) {
  let started;
  let allowed;
  let added = 0;
  let stop;
  return {
    next(ratios, roundsRun, secondsPerRound) {
      started ??= now();
      allowed ??= typeof seconds === "function" ? seconds(roundsRun * secondsPerRound) : seconds;
      if (decided(summarizeRatios(ratios, limit))) {
        if (added > 0) stop = "decided";
        return 0;
      }
      if (roundsRun >= maxRounds) {
        stop = "rounds cap";
        return 0;
      }
      const n = Math.min(batch, maxRounds - roundsRun);
      if (now() - started + n * secondsPerRound > allowed) {
        stop = "time budget";
        return 0;
      }
      added += n;
      return n;
    },
    outcome: () => ({ added, stop, seconds: started === undefined ? 0 : now() - started }),
  };
}

/**
 * The extra time a pair may spend, given its first rounds' time: as long again (a pair at most
 * doubles its time), at least `minSeconds` (a cheap pair can still reach the rounds cap), never
 * more than the `left` of the table's whole extra time.
 */
export const extraAllowance =
  ({ minSeconds, left }) =>
  (baseSeconds) =>
    Math.min(Math.max(baseSeconds, minSeconds), left);

// Ratios under 0.1 (the NeMo Relay rows) keep a third digit.
const x = (v) => (Number.isFinite(v) ? `${v.toFixed(Math.abs(v) < 0.1 ? 3 : 2)}×` : "n/a");

/** "15", "35 (+20; decided)", "60 (+45; rounds cap)", with the unreadable rounds if any. */
function roundsCell(s) {
  const run = s.total ?? s.rounds;
  const unreadable = run > s.rounds ? `, ${run - s.rounds} unreadable` : "";
  const extra = s.extra?.added ? `+${s.extra.added}; ${s.extra.stop}` : "";
  const notes = [extra, unreadable.slice(2)].filter(Boolean).join(", ");
  return notes ? `${run} (${notes})` : `${run}`;
}

/** One row of the targets table: [pair, median ratio, interval of the median, rounds, target, verdict]. */
export function targetRow(label, s) {
  if (s.notMeasured) return [label, "—", "—", "—", `≤ ${s.limit}×`, `not measured: ${s.notMeasured}`];
  if (s.invalid) return [label, x(s.median), "—", "—", `≤ ${s.limit}×`, `INVALID: ${s.invalid}`];
  const verdict = s.met === undefined ? "no verdict (no readable round)" : s.met ? "met" : "not met";
  // Below 95 % (fewer than 6 readable rounds) the interval is min–max: say how much it holds.
  const short = s.rounds > 0 && s.coverage < CONFIDENCE ? ` (${(s.coverage * 100).toFixed(1)} %)` : "";
  const interval = s.rounds > 0 ? `${x(s.lo)}–${x(s.hi)}${short}` : "—";
  const open = s.rounds > 0 && !decided(s) ? " (interval holds the target)" : "";
  return [label, x(s.median), interval, roundsCell(s), `≤ ${s.limit}×`, verdict + open];
}
