// §1 Tool-call overhead: executeTool around a trivial function, against the direct call and the
// references (raw OTel spans with 7 attributes and with the full projection's attributes, to a
// no-op exporter and to a loopback OTLP receiver; the ATOF sink's floor), all interleaved.
import { runToolVariants } from "../lib/tool-run.mjs";
import { REFERENCES, TOOL_VARIANTS } from "../lib/variants.mjs";
import { ns, ratio, table, verdict } from "../lib/format.mjs";

const NAMES = ["none", "interceptSanitizer", "atofFile", "otelFull", "otelOpeninference", "otelGenAi", "otlpFull"];

/** Issue #17's targets measured in this section: variant / reference ≤ limit. */
export const OVERHEAD_TARGETS = [
  { key: "noSubscriber", variant: "none", reference: "rawOtel", limit: 0.25, text: "no subscriber ≤ 0.25× raw OTel span (7 attrs)" },
  {
    key: "fullProjection",
    variant: "otelFull",
    reference: "rawOtelFull",
    limit: 1.3,
    text: "full projection (no-op exporter) ≤ 1.3× raw OTel span, same 19 attrs",
  },
  {
    key: "fullOtlp",
    variant: "otlpFull",
    reference: "rawOtlpFull",
    limit: 1.3,
    text: "full → OTLP ≤ 1.3× raw OTel span (19 attrs) → the same OTLP receiver",
  },
  {
    key: "atofFile",
    variant: "atofFile",
    reference: "atofFloor",
    limit: 1.4,
    text: "ATOF file sink ≤ 1.4× its floor (build + stringify, no I/O)",
  },
];

export function evaluateTarget(t, stats, checks) {
  const value = stats[t.variant].median / stats[t.reference].median;
  const invalid = [t.variant, t.reference].filter((k) => checks[k] && !checks[k].valid);
  return { target: t.text, value, limit: t.limit, met: invalid.length ? undefined : value <= t.limit, invalid };
}

export async function runOverhead(api, cfg) {
  const { stats, checks, diagnostics } = await runToolVariants([{ key: "relaytrace", api }], NAMES, cfg);
  const direct = stats.direct.median;
  const raw = stats.rawOtel.median;
  const rows = Object.keys(stats).map((name) => {
    const s = stats[name];
    const reference = TOOL_VARIANTS[name]?.reference;
    return {
      name,
      label: TOOL_VARIANTS[name]?.label ?? REFERENCES[name].label,
      medianNs: s.median,
      p95Ns: s.p95,
      addedNs: s.median - direct,
      ratioToRawOtel: s.median / raw,
      reference,
      ratioToReference: reference ? s.median / stats[reference].median : undefined,
      check: checks[name],
    };
  });
  const targets = Object.fromEntries(OVERHEAD_TARGETS.map((t) => [t.key, evaluateTarget(t, stats, checks)]));
  return { config: cfg, rows, targets, diagnostics };
}

const validity = (c) => {
  if (!c) return "—";
  if (c.valid) return c.expectedSpans !== undefined ? `ok, ${c.receivedSpans.toLocaleString("en-US")} spans received` : "ok";
  const parts = [];
  if (c.drops) parts.push(`${c.drops.toLocaleString("en-US")} dropped`);
  if (c.expectedSpans !== undefined)
    parts.push(`${c.receivedSpans.toLocaleString("en-US")}/${c.expectedSpans.toLocaleString("en-US")} spans received`);
  return `INVALID: ${parts.join(", ")}`;
};

export const targetVerdict = (t) => (t.invalid?.length ? `INVALID (${t.invalid.join(", ")} lost spans)` : verdict(t.met));

export function formatOverhead(result) {
  const lines = [];
  lines.push(
    table(
      ["variant", "median ns/call", "p95 ns/call", "added ns vs direct", "× raw OTel span (7 attrs)", "× its reference", "delivered"],
      result.rows.map((r) => [
        r.label,
        ns(r.medianNs),
        ns(r.p95Ns),
        ns(r.addedNs),
        ratio(r.ratioToRawOtel),
        r.reference ? `${ratio(r.ratioToReference)} ${r.reference}` : "—",
        validity(r.check),
      ]),
    ),
  );
  if (Object.keys(result.diagnostics).length > 0) lines.push("", `diagnostics: ${JSON.stringify(result.diagnostics)}`);
  return lines.join("\n");
}
