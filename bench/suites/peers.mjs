// §2 Against peers: each library in its own child process (only its own AsyncLocalStorage is
// active), children rotated over several passes; then all libraries in one process (shared storage).
import { runChild } from "../lib/child.mjs";
import { ns, ratio, table, verdict } from "../lib/format.mjs";
import { PEER_LABELS } from "../lib/peers.mjs";
import { summarize } from "../lib/stats.mjs";

const LIBS = ["rawOtel", "openinference", "agentsCore", "relaytraceOpeninference", "relaytraceNone"];

export async function runPeers(cfg) {
  const isolated = Object.fromEntries(LIBS.map((l) => [l, { samples: [], directSamples: [] }]));
  for (let pass = 0; pass < cfg.passes; pass++) {
    for (let i = 0; i < LIBS.length; i++) {
      const lib = LIBS[(i + pass) % LIBS.length];
      const stats = await runChild("peer.mjs", [
        JSON.stringify({ libs: [lib], rounds: cfg.rounds, calls: cfg.calls, warmupCalls: cfg.warmupCalls }),
      ]);
      isolated[lib].samples.push(...stats[lib].samples);
      isolated[lib].directSamples.push(...stats.direct.samples);
    }
  }
  const shared = await runChild("peer.mjs", [
    JSON.stringify({ libs: LIBS, rounds: cfg.rounds * cfg.passes, calls: cfg.calls, warmupCalls: cfg.warmupCalls }),
  ]);
  const raw = summarize(isolated.rawOtel.samples).median;
  const sharedRaw = shared.rawOtel.median;
  const rows = LIBS.map((lib) => {
    const s = summarize(isolated[lib].samples);
    const d = summarize(isolated[lib].directSamples);
    return {
      lib,
      label: PEER_LABELS[lib],
      isolated: { medianNs: s.median, p95Ns: s.p95, directMedianNs: d.median, ratioToRawOtel: s.median / raw },
      shared: { medianNs: shared[lib].median, p95Ns: shared[lib].p95, ratioToRawOtel: shared[lib].median / sharedRaw },
    };
  });
  const oi = rows.find((r) => r.lib === "openinference").isolated.medianNs;
  const ours = rows.find((r) => r.lib === "relaytraceOpeninference").isolated.medianNs;
  const target = { target: "openinference projection ≤ 1.0× OpenInference traceTool (isolated children)", value: ours / oi, limit: 1.0 };
  target.met = target.value <= target.limit;
  return { config: cfg, rows, sharedDirectMedianNs: shared.direct.median, target };
}

export function formatPeers(result) {
  return [
    "Isolated (one library per child process; only its own context storage active):",
    table(
      ["library", "median ns/call", "p95 ns/call", "direct call in same process ns", "× raw OTel span"],
      result.rows.map((r) => [
        r.label,
        ns(r.isolated.medianNs),
        ns(r.isolated.p95Ns),
        ns(r.isolated.directMedianNs),
        ratio(r.isolated.ratioToRawOtel),
      ]),
    ),
    "",
    `Shared storage (all libraries loaded and active in one process; direct call there: ${ns(result.sharedDirectMedianNs)} ns):`,
    table(
      ["library", "median ns/call", "p95 ns/call", "× raw OTel span"],
      result.rows.map((r) => [r.label, ns(r.shared.medianNs), ns(r.shared.p95Ns), ratio(r.shared.ratioToRawOtel)]),
    ),
    "",
    table(["target", "measured", "verdict"], [[result.target.target, ratio(result.target.value), verdict(result.target.met)]]),
  ].join("\n");
}
