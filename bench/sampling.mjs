// What tail sampling (`createRuntime({ sampling })`) costs, in one process, interleaved: per agent-
// shaped trace (a root scope with three tool calls, 8 events; one trace in 20 has a failing tool)
// delivered to a no-op subscriber or written by the ATOF file exporter.
//
//   node bench/sampling.mjs [--base=<tree with dist/ (before)>] [--rounds=N] [--traces=N] [--quick] [--node=24]
//
// Columns: sampling unset (this build, and the --base build when given: the hot path must not
// change), `{ ratio: 0.1 }`, `{ ratio: 0.1, keep: { errors: true } }` and `{ ratio: 1 }` (every
// trace held, then kept: the whole price of holding). Each ratio is against "unset" of this build
// in the same rounds. Prints the median CPU and wall time per trace (delivery included: each round
// ends with `flush()`); a variant whose runtime counted lost events (other than the traces
// sampling dropped) is flagged INVALID.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRelaytrace } from "./lib/load.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { rerunUnderRequestedNode } from "./lib/node24.mjs";
import { interleave, median } from "./lib/stats.mjs";
import { ns, ratio, table } from "./lib/format.mjs";

const argv = process.argv.slice(2);
rerunUnderRequestedNode(fileURLToPath(import.meta.url), argv);
const arg = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = argv.includes("--quick");
const cfg = {
  rounds: Number(arg("rounds") ?? (quick ? 5 : 11)),
  calls: Number(arg("traces") ?? (quick ? 500 : 4_000)),
  warmupCalls: quick ? 300 : 2_000,
};

const SAMPLINGS = {
  unset: undefined,
  "ratio 0.1": { ratio: 0.1 },
  "keep errors": { ratio: 0.1, keep: { errors: true } },
  "ratio 1 (all held)": { ratio: 1 },
};
const SINKS = ["noop subscriber", "ATOF file"];

const ARGS = { city: "Oslo", units: "metric" };
const RESULT = { result: { temp_c: 4, conditions: "clear" } };
const ok = async () => RESULT;
const failing = async () => {
  throw new Error("upstream timeout");
};

/** One agent-shaped trace: the root, three tool calls (the second fails in one trace of 20). */
async function trace(rt, i) {
  try {
    await rt.withScope(
      "weather-agent",
      async () => {
        await rt.executeTool("lookup_weather", ARGS, ok, { toolCallId: "call_1" });
        await rt.executeTool("lookup_forecast", ARGS, i % 20 === 7 ? failing : ok, { toolCallId: "call_2" });
        await rt.executeTool("lookup_alerts", ARGS, ok, { toolCallId: "call_3" });
      },
      { category: "agent" },
    );
  } catch (error) {
    if (error?.message !== "upstream timeout") throw error; // only the failing trace's error is expected
  }
}

async function make(api, sink, sampling) {
  const rt = api.createRuntime(sampling === undefined ? {} : { sampling });
  let dir;
  if (sink === "ATOF file") {
    dir = await mkdtemp(path.join(os.tmpdir(), "relaytrace-bench-sampling-"));
    new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl"), mode: "overwrite" }).register(rt);
  } else {
    rt.subscribe("noop", () => {});
  }
  let i = 0;
  const cpu = [];
  return {
    runtime: rt,
    cpu,
    run: async (n) => {
      const before = process.cpuUsage();
      for (let k = 0; k < n; k++) await trace(rt, i++);
      await rt.flush(); // delivery (and what sampling does at the end of a pass) belongs to the round
      const used = process.cpuUsage(before);
      cpu.push(((used.user + used.system) * 1000) / n);
    },
    close: async () => {
      await rt.shutdown();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

const lost = (rt) =>
  rt
    .diagnostics()
    .filter((d) => d.code !== "sampling.dropped_traces" && /dropped|not_exported|failed|overflow/.test(d.code))
    .reduce((n, d) => n + d.count, 0);

const machine = machineInfo();
const after = await loadRelaytrace();
const base = arg("base") ? await loadRelaytrace(arg("base")) : undefined;
console.log(`tail sampling: node ${machine.node}, ${machine.cores} cores (${machine.cpuModel})`);
console.log(`this build: ${after.dist}${base ? `\nbase build: ${base.dist}` : ""}`);
console.log(`${cfg.rounds} rounds × ${cfg.calls} traces (8 events each) after ${cfg.warmupCalls} warm-up, interleaved\n`);

for (const sink of SINKS) {
  const holders = {};
  const entries = [];
  const add = (key, api, sampling) =>
    entries.push({
      name: key,
      setup: async () => void (holders[key] = await make(api, sink, sampling)),
      run: (n) => holders[key].run(n),

      teardown: () => holders[key].close(),
    });
  if (base) add("base unset", base, undefined);
  for (const [label, sampling] of Object.entries(SAMPLINGS)) add(label, after, sampling);
  const stats = await interleave(entries, cfg);
  // CPU per trace of the measured rounds (the first sample is the warm-up's).
  const cpuOf = (key) => median(holders[key].cpu.slice(1));
  const unset = { wall: stats["unset"].median, cpu: cpuOf("unset") };
  const rows = [];
  const row = (label, key, note) => {
    const valid = lost(holders[key].runtime) === 0;
    const wall = stats[key].median;
    const cpu = cpuOf(key);
    return [label, ns(cpu), valid ? ratio(cpu / unset.cpu) : "INVALID", ns(wall), valid ? ratio(wall / unset.wall) : "INVALID", note];
  };
  if (base) rows.push(row("unset, base build", "base unset", ""));
  for (const label of Object.keys(SAMPLINGS)) {
    const dropped = holders[label].runtime.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.count ?? 0;
    const share = `${((100 * dropped) / (cfg.warmupCalls + cfg.rounds * cfg.calls)).toFixed(1)} %`;
    rows.push(row(label, label, label === "unset" ? "" : share));
  }
  console.log(`${sink}:`);
  console.log(table(["sampling", "CPU ns/trace", "CPU × unset", "wall ns/trace", "wall × unset", "traces dropped"], rows));
  console.log("");
}
