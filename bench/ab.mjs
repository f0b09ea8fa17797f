// A/B: two built relaytrace trees measured interleaved in ONE process, so machine noise hits both alike.
//
//   node --expose-gc bench/ab.mjs [--base=<tree with dist/>] [--after=<tree>] [--variants=a,b,...] [--quick]
//                     [--rounds=N] [--calls=N] [--warmup=N] [--loop-rounds=N] [--node=24] [--wall]
//
// --base is A ("before"); by default the last release, the commit bench/baseline-release.txt
// records, checked out and built once in the system temp directory (bench/lib/baseline.mjs). Give
// another tree (e.g. a `git worktree add /tmp/before main` with `npm run build` run in it) to
// compare against it instead. --after is B (default: this repository's own dist/). Each tree may
// be given as its root or as its dist/ directory. Tool rounds are timed in this process's CPU
// time (other processes on a loaded machine do not count; --wall for wall time), with garbage
// collected before each block under --expose-gc; after/before is the median of per-round ratios,
// printed with its spread (min–max over the rounds). Variants (default: all): none, noopSubscriber, interceptSanitizer, atofFile, otelFull,
// otelOpeninference, otelGenAi, otlpFull (full projection → OTLP/HTTP protobuf, loopback receiver
// in a child process), loop (agent loop with ATOF + ATIF + OTel openinference: added CPU µs per
// traced event over the same loop untraced, each build against its own "off"). Every tool
// variant of both builds runs in the same `interleave` as the references it is compared with
// (raw OTel spans, the ATOF floor), so each build's "× reference" comes from the same rounds.
// Prints median ns/call of each build, after/before, and each build's ratio to its reference; a
// variant that dropped spans or events is flagged INVALID instead of being reported as fast.
//
// AsyncLocalStorage: each build installs its own ALS, so this process has two active (on Node 20
// every active ALS adds promise-hook work to every promise, the references' included). Absolute
// ns/call are therefore higher than in `npm run bench`, but both builds pay the same: read the
// after/before ratio, not the absolute figures.
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadRelaytrace } from "./lib/load.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { rerunUnderRequestedNode } from "./lib/node24.mjs";
import { runToolVariants } from "./lib/tool-run.mjs";
import { REFERENCES, TOOL_VARIANTS } from "./lib/variants.mjs";
import { median } from "./lib/stats.mjs";
import { ns, ratio, table } from "./lib/format.mjs";
import { cpuPerEventUs, runLoopVariants } from "./suites/loop.mjs";
import { releaseCommit, releaseTree } from "./lib/baseline.mjs";
import { perRoundRatios, summarizeRatios } from "./lib/ratios.mjs";

const argv = process.argv.slice(2);
rerunUnderRequestedNode(fileURLToPath(import.meta.url), argv);
const arg = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const num = (name, fallback) => (arg(name) === undefined ? fallback : Number(arg(name)));

const base = arg("base") ?? releaseTree();
const quick = argv.includes("--quick");
const ALL = [...Object.keys(TOOL_VARIANTS), "loop"];
const wanted = arg("variants")?.split(",") ?? ALL;
for (const v of wanted) {
  if (!ALL.includes(v)) {
    console.error(`unknown variant ${v}; known: ${ALL.join(", ")}`);
    process.exit(2);
  }
}
const toolNames = wanted.filter((v) => v !== "loop");
const cfg = {
  rounds: num("rounds", quick ? 5 : 9),
  calls: num("calls", quick ? 2_000 : 20_000),
  warmupCalls: num("warmup", quick ? 1_000 : 5_000),
  cpu: !argv.includes("--wall"),
};
const loopCfg = { rounds: num("loop-rounds", quick ? 3 : 10), runsPerRound: quick ? 3 : 6, warmupRuns: quick ? 1 : 3 };

const machine = machineInfo();
const before = await loadRelaytrace(base);
const after = await loadRelaytrace(arg("after"));
console.log(`A/B in one process: node ${machine.node}, ${machine.cores} cores (${machine.cpuModel})`);
console.log(`before (A): ${before.dist}${arg("base") === undefined ? ` (release ${releaseCommit()})` : ""}`);
console.log(`after  (B): ${after.dist}`);
if (path.resolve(before.dist) === path.resolve(after.dist))
  console.log("(A and B are the same tree: an A/A run, the ratios show the noise)");
console.log(
  `tool variants: ${cfg.rounds} rounds × ${cfg.calls} calls after ${cfg.warmupCalls} warm-up, interleaved, ${cfg.cpu ? "CPU" : "wall"} time${cfg.cpu && !globalThis.gc ? " (no --expose-gc: no GC between blocks)" : ""}; load average ${machine.load ?? os.loadavg()[0].toFixed(1)}; two relaytrace ALS instances active\n`,
);

const builds = [
  { key: "before", api: before },
  { key: "after", api: after },
];

if (toolNames.length) {
  const { stats, checks } = await runToolVariants(builds, toolNames, cfg);
  const delivered = (key) => {
    const c = checks[key];
    if (!c || c.valid) return c?.receivedSpans !== undefined ? `${c.receivedSpans}` : "ok";
    return `INVALID (${c.drops} dropped${c.receivedSpans !== undefined ? `, ${c.receivedSpans}/${c.expectedSpans} received` : ""})`;
  };
  const refRows = Object.keys(REFERENCES)
    .filter((r) => stats[r])
    .map((r) => [`${r}: ${REFERENCES[r].label}`, ns(stats[r].median), delivered(r)]);
  const rows = toolNames.map((name) => {
    const a = stats[`before.${name}`];
    const b = stats[`after.${name}`];
    const ref = stats[TOOL_VARIANTS[name].reference];
    const ok = checks[`before.${name}`].valid && checks[`after.${name}`].valid;
    const r = summarizeRatios(perRoundRatios(b.samples, a.samples), Infinity);
    return [
      `${name}: ${TOOL_VARIANTS[name].label}`,
      ns(a.median),
      ns(b.median),
      ok ? `${ratio(r.median)} (${ratio(r.min)}–${ratio(r.max)})` : "INVALID",
      `${ratio(a.median / ref.median)} → ${ratio(b.median / ref.median)}`,
      TOOL_VARIANTS[name].reference,
      `${delivered(`before.${name}`)} / ${delivered(`after.${name}`)}`,
    ];
  });
  console.log(table(["reference (same rounds, no relaytrace)", "ns/call", "delivered"], refRows));
  console.log("");
  console.log(
    table(
      [
        "variant",
        "before ns/call",
        "after ns/call",
        "after/before (per-round spread)",
        "× reference (before → after)",
        "reference",
        "delivered (before / after)",
      ],
      rows,
    ),
  );
}

if (wanted.includes("loop")) {
  console.log(
    `\nagent loop (5 turns × 3 tools, 1 ms provider delay): ${loopCfg.rounds} rounds × ${loopCfg.runsPerRound} runs, interleaved`,
  );
  const { byKey, badRuns } = await runLoopVariants(builds, ["off", "target"], loopCfg);
  const per = (k) => cpuPerEventUs(byKey[`${k}.target`], byKey[`${k}.off`]);
  const ms = (k, v) => (median(byKey[`${k}.${v}`].cpuUs) / 1000).toFixed(2);
  console.log(
    table(
      ["ATOF + ATIF + OTel openinference", "before", "after", "after/before"],
      [
        [
          "CPU ms/run, tracing off",
          ms("before", "off"),
          ms("after", "off"),
          ratio(median(byKey["after.off"].cpuUs) / median(byKey["before.off"].cpuUs)),
        ],
        [
          "CPU ms/run, tracing on",
          ms("before", "target"),
          ms("after", "target"),
          ratio(median(byKey["after.target"].cpuUs) / median(byKey["before.target"].cpuUs)),
        ],
        ["events per run", byKey["before.target"].eventsPerRun.toFixed(0), byKey["after.target"].eventsPerRun.toFixed(0), ""],
        ["added CPU µs per traced event", per("before").toFixed(1), per("after").toFixed(1), ratio(per("after") / per("before"))],
      ],
    ),
  );
  if (badRuns) console.log(`WARNING: ${badRuns} run(s) did not finish as scripted`);
}
