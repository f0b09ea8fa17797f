// Small statistics helpers for interleaved benchmark rounds.

export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest-rank on the sorted sample: p95 of 7 rounds is the largest round.
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const p95 = (values) => quantile(values, 0.95);
export const p99 = (values) => quantile(values, 0.99);

export function summarize(values) {
  return { median: median(values), p95: p95(values), rounds: values.length };
}

/**
 * Runs every variant `rounds` times, interleaved (round 1: A B C, round 2: B C A, ...), so that
 * drift in machine speed hits all variants alike. `variant.run(n)` performs n calls and returns
 * nothing; the time per call of each round is kept. A variant may set its own `calls` and
 * `warmupCalls` (a slow peer needs fewer calls per round than a fast one). Returns { name: { median, p95, samples } } in ns/call.
 * `cpu: true` measures this process's CPU time (user + system) instead of wall time, so other
 * processes on a loaded machine do not count, and collects garbage before each block when the
 * process runs with --expose-gc (one block's garbage is not charged to the next).
 * `more(samples, secondsPerRound)` (optional), asked after the rounds and after each batch it
 * asks for, returns { rounds, names } to run `rounds` more rounds of the variants `names` only
 * (interleaved as before), or nothing to stop; secondsPerRound is the last batch's.
 */
export async function interleave(variants, { rounds, calls, warmupCalls, cpu = false, more }) {
  const gc = cpu ? globalThis.gc : undefined;
  const nowNs = cpu
    ? () => {
        const u = process.cpuUsage();
        return (u.user + u.system) * 1000;
      }
    : () => Number(process.hrtime.bigint());
  for (const v of variants) if (v.setup) await v.setup();
  // Warm-up runs inside the same before/after hooks as a round: a variant may install its
  // middleware only for its own rounds (NeMo Relay's registrations are process-wide).
  for (const v of variants) {
    if (v.beforeRound) await v.beforeRound();
    await v.run(v.warmupCalls ?? warmupCalls);
    if (v.afterRound) await v.afterRound();
  }
  const samples = Object.fromEntries(variants.map((v) => [v.name, []]));
  const runRound = async (order) => {
    for (const v of order) {
      if (v.beforeRound) await v.beforeRound();
      if (gc) gc();
      const n = v.calls ?? calls;
      const t0 = nowNs();
      await v.run(n);
      const t1 = nowNs();
      samples[v.name].push((t1 - t0) / n);
      if (v.afterRound) await v.afterRound();
    }
  };
  let batch = variants;
  let batchRounds = rounds;
  let r = 0;
  while (batchRounds > 0) {
    const batchStarted = Date.now();
    for (let end = r + batchRounds; r < end; r++) await runRound(batch.map((_, i) => batch[(i + r) % batch.length]));
    const next = more?.(samples, (Date.now() - batchStarted) / 1000 / batchRounds);
    batchRounds = next?.rounds ?? 0;
    if (next) batch = variants.filter((v) => next.names.includes(v.name));
  }
  for (const v of variants) if (v.teardown) await v.teardown();
  const out = {};
  for (const v of variants) out[v.name] = { ...summarize(samples[v.name]), samples: samples[v.name] };
  return out;
}
