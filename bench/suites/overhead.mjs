// §1 Tool-call overhead: executeTool around a trivial function, against the direct call and a raw OTel span.
import { interleave } from "../lib/stats.mjs";
import { createRawOtelTool, loop, toolFn } from "../lib/workload.mjs";
import { relaytraceVariants } from "../lib/variants.mjs";
import { ns, ratio, table, verdict } from "../lib/format.mjs";

const LABELS = {
  direct: "direct call (no tracing)",
  rawOtel: "raw OTel span, 7 attrs (reference)",
  none: "relaytrace, no subscriber",
  interceptSanitizer: "relaytrace, 1 intercept + 1 sanitizer (+ no-op subscriber)",
  atofFile: "relaytrace + ATOF file exporter",
  otelFull: "relaytrace + OTel full projection",
  otelOpeninference: "relaytrace + OTel openinference projection",
  otelGenAi: "relaytrace + OTel gen_ai projection",
};

export async function runOverhead(api, cfg) {
  const holders = {};
  const relaytrace = {
    none: relaytraceVariants.none,
    interceptSanitizer: relaytraceVariants.interceptSanitizer,
    atofFile: relaytraceVariants.atofFile,
    otelFull: relaytraceVariants.otel("full"),
    otelOpeninference: relaytraceVariants.otel("openinference"),
    otelGenAi: relaytraceVariants.otel("gen_ai"),
  };
  const variants = [
    { name: "direct", run: (n) => loop(n, toolFn) },
    {
      name: "rawOtel",
      setup: () => void (holders.rawOtel = createRawOtelTool()),
      run: (n) => loop(n, holders.rawOtel.call),
      teardown: () => holders.rawOtel.shutdown(),
    },
    ...Object.entries(relaytrace).map(([name, make]) => ({
      name,
      setup: async () => void (holders[name] = await make(api)),
      run: (n) => loop(n, holders[name].call),
      // Delivery and exporter I/O of one round must not spill into the next variant's timing.
      afterRound: () => holders[name].runtime.flush(),
      teardown: () => holders[name].close(),
    })),
  ];
  const stats = await interleave(variants, cfg);
  const diagnostics = {};
  for (const name of Object.keys(relaytrace)) {
    const d = holders[name].runtime.diagnostics();
    if (d.length > 0) diagnostics[name] = d;
  }
  const direct = stats.direct.median;
  const raw = stats.rawOtel.median;
  const rows = Object.keys(LABELS).map((name) => {
    const s = stats[name];
    return {
      name,
      label: LABELS[name],
      medianNs: s.median,
      p95Ns: s.p95,
      addedNs: s.median - direct,
      ratioToRawOtel: s.median / raw,
      addedRatioToRawOtel: (s.median - direct) / (raw - direct),
    };
  });
  const targets = {
    noSubscriber: { target: "≤ 0.3× raw OTel span", value: rows.find((r) => r.name === "none").ratioToRawOtel, limit: 0.3 },
    fullProjection: { target: "≤ 1.5× raw OTel span", value: rows.find((r) => r.name === "otelFull").ratioToRawOtel, limit: 1.5 },
  };
  for (const t of Object.values(targets)) t.met = t.value <= t.limit;
  return { config: cfg, rows, targets, diagnostics };
}

export function formatOverhead(result) {
  const lines = [];
  lines.push(
    table(
      ["variant", "median ns/call", "p95 ns/call", "added ns vs direct", "× raw OTel span"],
      result.rows.map((r) => [r.label, ns(r.medianNs), ns(r.p95Ns), ns(r.addedNs), ratio(r.ratioToRawOtel)]),
    ),
  );
  lines.push("");
  lines.push(
    table(
      ["target", "measured", "verdict"],
      Object.entries(result.targets).map(([k, t]) => [`${k}: ${t.target}`, ratio(t.value), verdict(t.met)]),
    ),
  );
  if (Object.keys(result.diagnostics).length > 0) lines.push("", `diagnostics: ${JSON.stringify(result.diagnostics)}`);
  return lines.join("\n");
}
