// §5 Scale: cost per event as registered intercepts, sanitizers and subscribers grow (1, 4, 16).
// Every case has at least one no-op subscriber so events are built and delivered.
import { interleave } from "../lib/stats.mjs";
import { loop } from "../lib/workload.mjs";
import { relaytraceVariants } from "../lib/variants.mjs";
import { ns, table, verdict } from "../lib/format.mjs";

const SIZES = [1, 4, 16];
const EVENTS_PER_CALL = 2; // a tool start and a tool end

const register = {
  intercepts: (rt, n) => {
    rt.subscribe("noop", () => {});
    for (let i = 0; i < n; i++) rt.registerToolExecutionIntercept(`pass${i}`, i, (args, next) => next(args));
  },
  sanitizers: (rt, n) => {
    rt.subscribe("noop", () => {});
    for (let i = 0; i < n; i++) {
      rt.registerScopeStartSanitizer(`start${i}`, i, (_event, fields) => fields);
      rt.registerScopeEndSanitizer(`end${i}`, i, (_event, fields) => fields);
    }
  },
  subscribers: (rt, n) => {
    for (let i = 0; i < n; i++) rt.subscribe(`noop${i}`, () => {});
  },
};

export async function runScale(api, cfg) {
  const holders = {};
  const variants = [];
  for (const [dimension, add] of Object.entries(register)) {
    for (const n of SIZES) {
      const name = `${dimension}:${n}`;
      variants.push({
        name,
        setup: async () => {
          holders[name] = await relaytraceVariants.none(api);
          add(holders[name].runtime, n);
        },
        run: (count) => loop(count, holders[name].call),
        afterRound: () => holders[name].runtime.flush(),
        teardown: () => holders[name].close(),
      });
    }
  }
  const stats = await interleave(variants, cfg);
  const dimensions = {};
  for (const dimension of Object.keys(register)) {
    const perEvent = Object.fromEntries(SIZES.map((n) => [n, stats[`${dimension}:${n}`].median / EVENTS_PER_CALL]));
    const p95 = Object.fromEntries(SIZES.map((n) => [n, stats[`${dimension}:${n}`].p95 / EVENTS_PER_CALL]));
    // Marginal cost of one more registration, from 1→4 and from 4→16; linear growth keeps them alike.
    const slopeLow = (perEvent[4] - perEvent[1]) / 3;
    const slopeHigh = (perEvent[16] - perEvent[4]) / 12;
    // Worse than linear would make the high slope grow well past the low one; allow noise.
    const linear = slopeHigh <= Math.max(2 * slopeLow, 50);
    dimensions[dimension] = { perEventNs: perEvent, p95PerEventNs: p95, marginalNs: { from1to4: slopeLow, from4to16: slopeHigh }, linear };
  }
  return { config: cfg, dimensions };
}

export function formatScale(r) {
  return table(
    ["registered", "ns/event at 1", "at 4", "at 16", "ns per extra (1→4)", "ns per extra (4→16)", "linear or better"],
    Object.entries(r.dimensions).map(([d, v]) => [
      d,
      ns(v.perEventNs[1]),
      ns(v.perEventNs[4]),
      ns(v.perEventNs[16]),
      ns(v.marginalNs.from1to4),
      ns(v.marginalNs.from4to16),
      verdict(v.linear),
    ]),
  );
}
