// §2b Against NeMo Relay: its Node binding needs Node >= 24, so this runs in a child process under
// bench's Node 24 binary whatever Node runs the bench. NeMo Relay and relaytrace variants are
// interleaved in that one process; each row is a ratio of medians.
import { runChild } from "../lib/child.mjs";
import { ns, ratio, table, verdict } from "../lib/format.mjs";
import { node24Path } from "../lib/node24.mjs";

export const NEMO_TARGET = 20;
// NeMo Relay encodes and sends OTLP off the JS thread, in native code: the OTel row's target is
// half as strict (≥ 10× cheaper, the targets table's ≤ 0.1×); the others ≥ 20× (≤ 0.05×).
const NEMO_OTEL_TARGET = 10;
const targetOf = (name) => (name === "otlpOpeninference" ? NEMO_OTEL_TARGET : NEMO_TARGET);

const LABELS = {
  none: "no subscriber",
  interceptSanitizer: "1 execution intercept + 1 request sanitizer (+ no-op subscriber)",
  atofFile: "ATOF JSONL file sink",
  otlpOpeninference: "OTel openinference projection → OTLP/HTTP protobuf, loopback receiver",
};

/** `nodeFlags`: --expose-gc for the targets table (a full gc before every block). */
export async function runNemo(cfg, nodeFlags = []) {
  const node = node24Path();
  if (!node) throw new Error("bench's Node 24 runtime is not installed (cd bench && npm install)");
  const out = await runChild("nemo.mjs", [JSON.stringify(cfg)], nodeFlags, node);
  const { stats } = out;
  const delivery = (side, name) => {
    const drops = side === "relaytrace" ? (out.drops[`relaytrace.${name}`] ?? 0) : 0;
    if (name !== "otlpOpeninference") return { drops, valid: drops === 0 };
    // Spans the side's OTLP variant made (warm-up included; a row may have run extra rounds)
    // against what the receiver decoded.
    const rounds = stats[`${side}.${name}`].samples.length;
    const made = side === "nemo" ? cfg.nemoWarmupCalls + rounds * cfg.nemoCalls : cfg.warmupCalls + rounds * cfg.calls;
    const received = out.receiver[side]?.spans ?? 0;
    // NeMo Relay may add spans of its own (≥); relaytrace makes exactly one per tool call.
    return { drops, made, received, valid: drops === 0 && (side === "nemo" ? received >= made : received === made) };
  };
  const rows = Object.keys(LABELS)
    .filter((name) => stats[`nemo.${name}`])
    .map((name) => {
      const nemo = stats[`nemo.${name}`];
      const ours = stats[`relaytrace.${name}`];
      const cheaper = nemo.median / ours.median;
      return {
        name,
        label: LABELS[name],
        nemoSamples: nemo.samples,
        relaytraceSamples: ours.samples,
        nemoMedianNs: nemo.median,
        nemoP95Ns: nemo.p95,
        relaytraceMedianNs: ours.median,
        relaytraceP95Ns: ours.p95,
        timesCheaper: cheaper,
        nemoDelivery: delivery("nemo", name),
        relaytraceDelivery: delivery("relaytrace", name),
        extra: out.extra?.[name],
        target: targetOf(name),
        met: cheaper >= targetOf(name),
      };
    });
  return { config: cfg, node: out.node, directMedianNs: stats.direct.median, receiver: out.receiver, rows };
}

const receiverLine = (stats) =>
  Object.entries(stats)
    .map(([source, s]) => `${s.requests} requests / ${s.bytes} bytes / ${s.spans} spans from ${source}`)
    .join(", ") || "nothing";

const deliveryText = (d) => {
  const spans = d.made !== undefined ? `${d.received}/${d.made} spans` : "";
  if (d.valid) return spans || "ok";
  return `INVALID: ${[d.drops ? `${d.drops} dropped` : "", spans].filter(Boolean).join(", ")}`;
};

export function formatNemo(result) {
  return [
    `NeMo Relay 0.9.2 (nemo-relay-node) and relaytrace interleaved in one ${result.node} process; direct call there: ${ns(result.directMedianNs)} ns; loopback OTLP receiver (child process) got ${receiverLine(result.receiver)}.`,
    table(
      [
        "per managed tool call",
        "NeMo Relay median ns",
        "relaytrace median ns",
        "× cheaper than NeMo Relay",
        `target ≥ ${NEMO_TARGET}× (OTel row ≥ ${NEMO_OTEL_TARGET}×)`,
        "delivered (NeMo Relay / relaytrace)",
      ],
      result.rows.map((r) => [
        r.label,
        ns(r.nemoMedianNs),
        ns(r.relaytraceMedianNs),
        ratio(r.timesCheaper),
        r.nemoDelivery.valid && r.relaytraceDelivery.valid ? verdict(r.met) : "INVALID",
        `${deliveryText(r.nemoDelivery)} / ${deliveryText(r.relaytraceDelivery)}`,
      ]),
    ),
  ].join("\n");
}
