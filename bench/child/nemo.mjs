// The NeMo Relay comparison, run under Node 24 (the binding needs it). argv: <json config>.
// Each NeMo Relay variant and relaytrace's matching variant run interleaved in this one process;
// prints one JSON line: { stats, receiver } with ns/call per variant.
import { loadRelaytrace } from "../lib/load.mjs";
import { nemoFactories } from "../lib/nemo.mjs";
import { startOtlpReceiver } from "../lib/otlp-receiver.mjs";
import { interleave } from "../lib/stats.mjs";
import { extraAllowance, extraRounds, perRoundRatios } from "../lib/ratios.mjs";
import { dropsOf, relaytraceVariants } from "../lib/variants.mjs";
import { loop, toolFn } from "../lib/workload.mjs";

const cfg = JSON.parse(process.argv[2]);
// With --expose-gc (the targets table) every block starts after a full gc, as the other pairs do.
const gc = () => globalThis.gc?.();
const api = await loadRelaytrace();
// In its own process: decoding both sides' requests does not load the measured thread.
const receiver = await startOtlpReceiver();

/** Variant pairs: [name, NeMo Relay factory, relaytrace factory]. */
const PAIRS = [
  ["none", () => nemoFactories.none(), relaytraceVariants.none],
  ["interceptSanitizer", () => nemoFactories.interceptSanitizer(), relaytraceVariants.interceptSanitizer],
  ["atofFile", () => nemoFactories.atofFile(), relaytraceVariants.atofFile],
  [
    "otlpOpeninference",
    () => nemoFactories.otlpOpeninference(receiver.url("nemo")),
    relaytraceVariants.otlp("openinference", receiver.url("relaytrace")),
  ],
];

const holders = {};
const variants = [{ name: "direct", run: (n) => loop(n, toolFn), calls: cfg.calls }];
for (const [name, nemo, ours] of PAIRS) {
  if (cfg.only && !cfg.only.includes(name)) continue;
  variants.push({
    name: `nemo.${name}`,
    calls: cfg.nemoCalls,
    warmupCalls: cfg.nemoWarmupCalls,
    setup: async () => void (holders[`nemo.${name}`] = await nemo()),
    beforeRound: () => {
      gc();
      return holders[`nemo.${name}`].install();
    },
    run: (n) => loop(n, holders[`nemo.${name}`].call),
    afterRound: () => holders[`nemo.${name}`].uninstall(),
    teardown: () => holders[`nemo.${name}`].close(),
  });
  variants.push({
    name: `relaytrace.${name}`,
    calls: cfg.calls,
    setup: async () => void (holders[`relaytrace.${name}`] = await ours(api)),
    beforeRound: gc,
    run: (n) => loop(n, holders[`relaytrace.${name}`].call),
    afterRound: () => holders[`relaytrace.${name}`].runtime?.flush(),
    teardown: () => holders[`relaytrace.${name}`].close(),
  });
}
// The targets table's extra rounds (cfg.extra: { limits: { [row]: limit }, batch, maxRounds,
// minSeconds, left }): a row whose interval still holds its limit runs more rounds of its two
// variants. The rows run together, so they share one allowance of extra time.
const rules = Object.fromEntries(
  Object.entries(cfg.extra?.limits ?? {})
    .filter(([name]) => variants.some((v) => v.name === `nemo.${name}`))
    .map(([name, limit]) => [name, extraRounds({ ...cfg.extra, limit, seconds: extraAllowance(cfg.extra) })]),
);
const more = (samples, secondsPerRound) => {
  const open = Object.entries(rules)
    .map(([name, rule]) => {
      const ratios = perRoundRatios(samples[`relaytrace.${name}`], samples[`nemo.${name}`]);
      return [name, rule.next(ratios, samples[`relaytrace.${name}`].length, secondsPerRound)];
    })
    .filter(([, n]) => n > 0);
  if (open.length === 0) return undefined;
  return { rounds: Math.max(...open.map(([, n]) => n)), names: open.flatMap(([name]) => [`nemo.${name}`, `relaytrace.${name}`]) };
};
const stats = await interleave(variants, { ...cfg, more: cfg.extra ? more : undefined });
const extra = Object.fromEntries(Object.entries(rules).map(([name, rule]) => [name, rule.outcome()]));
const received = await receiver.stats();
await receiver.close();
// Drops counted by relaytrace's runtimes (NeMo Relay's are seen only as spans missing at the receiver).
const drops = Object.fromEntries(
  Object.entries(holders)
    .filter(([k]) => k.startsWith("relaytrace."))
    .map(([k, h]) => [k, dropsOf(h.runtime)]),
);
process.stdout.write(JSON.stringify({ stats, receiver: received, drops, extra, node: process.version }) + "\n");
