// What tail sampling (`createRuntime({ sampling })`) costs, per agent-shaped trace (a root scope with
// three tool calls, 8 events; one trace in 20 has a failing tool) delivered to a no-op subscriber or
// written by the ATOF file exporter.
//
//   node bench/sampling.mjs [--base=<tree with dist/ (before)>] [--part=1|2] [--pairs=N] [--rounds=N] [--traces=N] [--quick] [--node=24]
//
// 1. With --base: sampling unset, this build against the base build. Each measurement runs in a
//    process of its own (two builds in one process share the scope context, and an A/A run there
//    shows the first-loaded one 1.2× slower), the two builds alternated (ABBA…) `--pairs` times;
//    the median CPU per trace of each build and their ratio.
// 2. Sampling in this build, in one process, interleaved: unset, `{ ratio: 0.1 }`,
//    `{ ratio: 0.1, keep: { errors: true } }` and `{ ratio: 1 }` (every trace held, then kept: the
//    whole price of holding), each against unset in the same rounds. Median CPU and wall time per
//    trace, delivery included (each round ends with `flush()`); a variant whose runtime counted
//    lost events (other than the traces sampling dropped) is flagged INVALID.
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.mjs";
import { loadRelaytrace } from "./lib/load.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { rerunUnderRequestedNode } from "./lib/node24.mjs";
import { interleave, median } from "./lib/stats.mjs";
import { ns, ratio, table } from "./lib/format.mjs";
import { SINKS, lostEvents, samplingSetup } from "./lib/sampling-workload.mjs";

const argv = process.argv.slice(2);
rerunUnderRequestedNode(fileURLToPath(import.meta.url), argv);
const arg = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = argv.includes("--quick");
const cfg = {
  rounds: Number(arg("rounds") ?? (quick ? 5 : 11)),
  calls: Number(arg("traces") ?? (quick ? 500 : 4_000)),
  warmupCalls: quick ? 300 : 2_000,
};
const pairs = Number(arg("pairs") ?? (quick ? 2 : 8));
const parts = arg("part") === undefined ? ["1", "2"] : [arg("part")];

const SAMPLINGS = {
  unset: undefined,
  "ratio 0.1": { ratio: 0.1 },
  "keep errors": { ratio: 0.1, keep: { errors: true } },
  "ratio 1 (all held)": { ratio: 1 },
};

const machine = machineInfo();
const after = await loadRelaytrace();
const baseTree = arg("base");
const base = baseTree ? await loadRelaytrace(baseTree) : undefined;
console.log(`tail sampling: node ${machine.node}, ${machine.cores} cores (${machine.cpuModel})`);
console.log(`this build: ${after.dist}${base ? `\nbase build: ${base.dist}` : ""}\n`);

if (base && parts.includes("1")) {
  console.log(
    `1. sampling unset, this build vs base: one process per measurement, ${pairs} ABBA pairs × ${cfg.calls} traces after ${cfg.warmupCalls} warm-up`,
  );
  const rows = [];
  for (const sink of SINKS) {
    const cpu = { base: [], this: [] };
    let lost = 0;
    for (let p = 0; p < pairs; p++) {
      const order = p % 2 === 0 ? ["base", "this"] : ["this", "base"];
      for (const which of order) {
        const tree = which === "base" ? base.dist : after.dist;
        const out = await runChild("sampling.mjs", [tree, sink, String(cfg.calls), String(cfg.warmupCalls)], [], process.execPath);
        cpu[which].push(out.cpuNsPerTrace);
        lost += out.lost;
      }
    }
    const b = median(cpu.base);
    const t = median(cpu.this);
    rows.push([sink, ns(b), ns(t), lost === 0 ? ratio(t / b) : "INVALID"]);
  }
  console.log(table(["sampling unset", "base CPU ns/trace", "this CPU ns/trace", "this / base"], rows));
  console.log("");
}

if (parts.includes("2")) {
  console.log(
    `2. sampling in this build, one process: ${cfg.rounds} rounds × ${cfg.calls} traces after ${cfg.warmupCalls} warm-up, interleaved\n`,
  );
  for (const sink of SINKS) {
    const holders = {};
    const entries = Object.entries(SAMPLINGS).map(([label, sampling]) => ({
      name: label,
      setup: async () => void (holders[label] = await samplingSetup(after, sink, sampling)),
      run: (n) => holders[label].run(n),
      teardown: () => holders[label].close(),
    }));
    const stats = await interleave(entries, cfg);
    // CPU per trace of the measured rounds (the first sample is the warm-up's).
    const cpuOf = (label) => median(holders[label].cpu.slice(1));
    const unset = { wall: stats["unset"].median, cpu: cpuOf("unset") };
    const rows = Object.keys(SAMPLINGS).map((label) => {
      const rt = holders[label].runtime;
      const valid = lostEvents(rt) === 0;
      const dropped = rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.count ?? 0;
      const share = `${((100 * dropped) / (cfg.warmupCalls + cfg.rounds * cfg.calls)).toFixed(1)} %`;
      return [
        label,
        ns(cpuOf(label)),
        valid ? ratio(cpuOf(label) / unset.cpu) : "INVALID",
        ns(stats[label].median),
        valid ? ratio(stats[label].median / unset.wall) : "INVALID",
        label === "unset" ? "" : share,
      ];
    });
    console.log(`${sink}:`);
    console.log(table(["sampling", "CPU ns/trace", "CPU × unset", "wall ns/trace", "wall × unset", "traces dropped"], rows));
    console.log("");
  }
}
