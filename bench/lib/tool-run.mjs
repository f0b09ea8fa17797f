// Runs tool-call variants of one or more relaytrace builds and their references, interleaved in
// this process, and checks that nothing was dropped (a variant that drops is invalid, not fast).
import { interleave } from "./stats.mjs";
import { startOtlpReceiver } from "./otlp-receiver.mjs";
import { REFERENCES, TOOL_VARIANTS, callsMade, dropsOf, interleaveEntries } from "./variants.mjs";

/** The references the named variants' targets need, `direct` and `rawOtel` always. */
export function referencesFor(names) {
  const refs = new Set(["direct", "rawOtel"]);
  for (const n of names) refs.add(TOOL_VARIANTS[n].reference);
  return [...refs];
}

/**
 * builds: [{ key, api }]; with more than one build a variant's result key is `${key}.${name}`.
 * Returns { stats, checks } where checks[key] = { drops, expectedSpans?, receivedSpans?, valid }.
 */
export async function runToolVariants(builds, names, cfg) {
  for (const n of names) if (!TOOL_VARIANTS[n]) throw new Error(`unknown variant ${n}; known: ${Object.keys(TOOL_VARIANTS).join(", ")}`);
  const refs = referencesFor(names);
  const otlp = names.some((n) => TOOL_VARIANTS[n].otlp);
  const receiver = otlp ? await startOtlpReceiver() : undefined;
  const keyOf = (build, name) => (builds.length > 1 ? `${build.key}.${name}` : name);
  const named = refs.map((ref) => [ref, () => REFERENCES[ref].make({ receiverUrl: receiver?.url(ref) })]);
  const otlpKeys = new Set(refs.filter((ref) => REFERENCES[ref].otlp));
  for (const build of builds) {
    for (const name of names) {
      const key = keyOf(build, name);
      if (TOOL_VARIANTS[name].otlp) otlpKeys.add(key);
      named.push([key, () => TOOL_VARIANTS[name].make(build.api, { receiverUrl: receiver?.url(key) })]);
    }
  }
  const holders = {};
  let stats;
  let received = {};
  try {
    stats = await interleave(interleaveEntries(named, holders), cfg);
  } finally {
    if (receiver) {
      received = await receiver.stats();
      await receiver.close();
    }
  }
  const checks = {};
  const expected = callsMade(cfg);
  for (const [key] of named) {
    const isOtlp = otlpKeys.has(key);
    const check = { drops: dropsOf(holders[key]?.runtime) + (holders[key]?.failures?.() ?? 0) };
    if (isOtlp) {
      check.expectedSpans = expected;
      check.receivedSpans = received[key]?.spans ?? 0;
      check.requests = received[key]?.requests ?? 0;
      check.bytes = received[key]?.bytes ?? 0;
    }
    check.valid = check.drops === 0 && (!isOtlp || check.receivedSpans === check.expectedSpans);
    checks[key] = check;
  }
  return { stats, checks, diagnostics: diagnosticsOf(holders) };
}

function diagnosticsOf(holders) {
  const out = {};
  for (const [key, h] of Object.entries(holders)) {
    const d = h.runtime?.diagnostics();
    if (d?.length) out[key] = d.map((x) => ({ code: x.code, count: x.count }));
  }
  return out;
}
