// relaytrace benchmarks: `npm run bench` prints the performance targets table (every target a ratio
// of two sides measured interleaved in one run, gc between blocks; a few minutes), `npm run bench --
// --quick` the same with few calls (figures rough, < 1 min). --all adds the detail sections.
// Options: --quick, --all, --only=targets,overhead,peers,nemo,loop,conversation,throughput,scale,hostile,sdks,prices,
// --out=<results.json path>,
// --node=24 (the whole bench under bench's Node 24 binary; `cd bench && npm install` first),
// --both (the whole bench on this Node, then on Node 24: results.json and results-node24.json),
// --pairs=growth,atof,... (only these rows of the targets table, by key; results go to -partial).
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { loadRelaytrace } from "./lib/load.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { nemoInstalled } from "./lib/nemo.mjs";
import { node24Path, rerunUnderRequestedNode } from "./lib/node24.mjs";
import { peersInstalled } from "./lib/peers.mjs";
import { formatOverhead, runOverhead } from "./suites/overhead.mjs";
import { formatPeers, runPeers } from "./suites/peers.mjs";
import { formatNemo, runNemo } from "./suites/nemo.mjs";
import { formatLoop } from "./suites/loop.mjs";
import { formatConversation } from "./suites/conversation.mjs";
import { runChild } from "./lib/child.mjs";
import { formatThroughput, runThroughput } from "./suites/throughput.mjs";
import { formatScale, runScale } from "./suites/scale.mjs";
import { formatHostile, runHostile } from "./suites/hostile.mjs";
import { formatPrices, runPrices } from "./suites/prices.mjs";
import { formatTargets } from "./suites/targets.mjs";
import { formatSdks, runSdks } from "./suites/sdks.mjs";

const argv = process.argv.slice(2);
if (argv.includes("--both")) {
  // The whole bench on this Node (20 on this machine), then on bench's Node 24; both printed in turn.
  const rest = argv.filter((a) => a !== "--both" && !a.startsWith("--node="));
  const node24 = node24Path();
  if (!node24) {
    console.error("--both: bench's Node 24 is not installed (cd bench && npm install)");
    process.exit(2);
  }
  const t0 = Date.now();
  let status = 0;
  for (const [label, binary] of [
    [`Node ${process.versions.node}`, process.execPath],
    ["Node 24 (--node=24)", node24],
  ]) {
    console.log(`\n# ${label}\n`);
    const child = spawnSync(binary, [fileURLToPath(import.meta.url), ...rest, ...(binary === node24 ? ["--node=24"] : [])], {
      stdio: "inherit",
    });
    status ||= child.status ?? 1;
  }
  console.log(`\nboth Node versions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  process.exit(status);
}
const wantedNode = rerunUnderRequestedNode(fileURLToPath(import.meta.url), argv);
const quick = argv.includes("--quick");
const only =
  argv
    .find((a) => a.startsWith("--only="))
    ?.slice(7)
    .split(",") ?? (argv.includes("--all") ? undefined : ["targets"]);
// A quick or partial run never overwrites the full run's results.json (BENCHMARKS.md quotes it).
// Default (targets only): results-targets[-quick].json; --all: results.json; --only or --quick with --all: -partial.
const pairs = argv
  .find((a) => a.startsWith("--pairs="))
  ?.slice(8)
  .split(",");
const suffix = only?.join() === "targets" && !pairs ? `-targets${quick ? "-quick" : ""}` : quick || only ? "-partial" : "";
const out =
  argv.find((a) => a.startsWith("--out="))?.slice(6) ??
  fileURLToPath(new URL(`./results${wantedNode ? `-node${wantedNode}` : ""}${suffix}.json`, import.meta.url));
const want = (name) => !only || only.includes(name);

const CONFIG = quick
  ? {
      targets: {
        tool: { rounds: 7, calls: 2_000, warmupCalls: 2_000 },
        ai7: { rounds: 5, runs: 10 },
        growth: { rounds: 5, runs5: 10, runs50: 1 },
        nemo: { rounds: 5, calls: 1_000, warmupCalls: 1_000, nemoCalls: 100, nemoWarmupCalls: 50 },
        extra: { batch: 2, maxRounds: 9, minSeconds: 3, seconds: 20 },
      },
      overhead: { rounds: 5, calls: 2_000, warmupCalls: 2_000 },
      peers: { passes: 1, rounds: 3, calls: 1_000, warmupCalls: 1_000 },
      nemo: { rounds: 3, calls: 1_000, warmupCalls: 1_000, nemoCalls: 100, nemoWarmupCalls: 50 },
      loop: { rounds: 2, runsPerRound: 3, warmupRuns: 1, perExporter: false },
      conversation: { rounds: 4, warmupRuns: 1, heapRuns: 8 },
      throughput: { calls: 20_000, quick: true },
      scale: { rounds: 3, calls: 1_000, warmupCalls: 500 },
      hostile: { rounds: 3, keys: [2_000, 4_000, 8_000], depths: [1_000, 2_000, 4_000], lineMiB: [16, 32, 64] },
      sdks: { rounds: 3, calls: 200, warmupCalls: 200 },
      prices: { rounds: 5, calls: 1_000, warmupCalls: 1_000 },
    }
  : {
      targets: {
        tool: { rounds: 15, calls: 20_000, warmupCalls: 10_000 },
        ai7: { rounds: 15, runs: 40 },
        growth: { rounds: 15, runs5: 40, runs50: 4 },
        nemo: { rounds: 15, calls: 10_000, warmupCalls: 5_000, nemoCalls: 1_000, nemoWarmupCalls: 300 },
        // Pairs whose 95 % interval holds their target add rounds (see BENCHMARKS.md, "Performance targets").
        extra: { batch: 5, maxRounds: 60, minSeconds: 10, seconds: 180 },
      },
      overhead: { rounds: 9, calls: 20_000, warmupCalls: 10_000 },
      peers: { passes: 3, rounds: 5, calls: 10_000, warmupCalls: 5_000 },
      nemo: { rounds: 7, calls: 10_000, warmupCalls: 5_000, nemoCalls: 1_000, nemoWarmupCalls: 300 },
      loop: { rounds: 14, runsPerRound: 8, warmupRuns: 3 },
      conversation: { rounds: 10, warmupRuns: 2, heapRuns: 80 },
      throughput: { calls: 1_000_000, quick: false },
      scale: { rounds: 7, calls: 10_000, warmupCalls: 3_000 },
      hostile: { rounds: 5, keys: [4_000, 8_000, 16_000], depths: [2_000, 4_000, 8_000], lineMiB: [32, 64, 128] },
      sdks: { rounds: 9, calls: 2_000, warmupCalls: 1_000 },
      prices: { rounds: 9, calls: 10_000, warmupCalls: 5_000 },
    };

if (pairs) CONFIG.targets.only = pairs;

const started = Date.now();
const machine = machineInfo();
console.log(`relaytrace benchmarks${quick ? " (quick smoke mode: few calls, figures are rough)" : ""}`);
console.log(`machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB; ${machine.platform}`);
console.log(`node ${machine.node} (V8 ${machine.v8})`);
const api = await loadRelaytrace();
console.log(`relaytrace loaded from ${api.source}${api.missing.length ? `; missing: ${api.missing.join(", ")}` : ""}`);

const results = { date: new Date().toISOString(), quick, machine, config: CONFIG, source: api.source };

async function section(key, title, run, format) {
  if (!want(key)) return;
  console.log(`\n## ${title}\n`);
  try {
    results[key] = await run();
    console.log(format(results[key]));
  } catch (error) {
    results[key] = { error: String(error?.stack ?? error) };
    console.log(`FAILED: ${error?.message ?? error}`);
    process.exitCode = 1;
  }
}

// The targets run first, in a fresh child process with --expose-gc (gc before every block).
await section(
  "targets",
  "Performance targets (ratios measured side by side in this run)",
  () => runChild("targets.mjs", [JSON.stringify(CONFIG.targets)], ["--expose-gc"]),
  formatTargets,
);
await section("overhead", "1. Tool-call overhead (ns per executeTool call)", () => runOverhead(api, CONFIG.overhead), formatOverhead);
/** A section that needs bench's own devDependencies: skipped with a note when they are absent. */
async function peerSection(key, title, installed, missing, run, format) {
  if (!want(key)) return;
  if (await installed()) return section(key, title, run, format);
  console.log(`\n## ${title}\n\nskipped: ${missing} not installed; run \`cd bench && npm install\`.`);
  results[key] = { skipped: `${missing} not installed (cd bench && npm install)` };
}

await peerSection(
  "peers",
  "2. Against peers (same tool call, same process)",
  peersInstalled,
  "peer libraries (OpenInference, OpenAI Agents)",
  () => runPeers(CONFIG.peers),
  formatPeers,
);
await peerSection(
  "nemo",
  "2b. Against NeMo Relay (same tool call, one Node 24 process)",
  nemoInstalled,
  "nemo-relay-node",
  () => runNemo(CONFIG.nemo),
  formatNemo,
);
// The loop sections run in a child each: in this process their figures depended on what ran
// before them (the heap and compiled code sections 1 and 2 leave behind).
// The conversation section reads the heap after a full gc between runs: its child gets --expose-gc.
const inOwnProcess = (name, cfg) =>
  runChild("agent-loop.mjs", [JSON.stringify({ section: name, cfg })], name === "conversation" ? ["--expose-gc"] : []);
await section(
  "loop",
  "3. Agent loop (5 turns × 3 tools, loopback provider, 1 ms reply delay)",
  () => inOwnProcess("loop", CONFIG.loop),
  formatLoop,
);
await section(
  "conversation",
  "3b. Long conversation (50 LLM calls, context growing to ~200 KB)",
  () => inOwnProcess("conversation", CONFIG.conversation),
  formatConversation,
);
await section("throughput", "4. Throughput and memory", () => runThroughput(CONFIG.throughput), formatThroughput);
await section("scale", "5. Scale (cost per event as registrations grow)", () => runScale(api, CONFIG.scale), formatScale);
await section("hostile", "6. Hostile input (time as the attacker doubles the input)", () => runHostile(CONFIG.hostile), formatHostile);
await section("sdks", "7. Provider SDK wrappers (µs per SDK call, in-process fetch)", () => runSdks(CONFIG.sdks), formatSdks);
await section(
  "prices",
  "8. Prices (ns per LLM call by pricing source, and the first priced call)",
  () => runPrices(api, CONFIG.prices),
  formatPrices,
);

results.elapsedSeconds = (Date.now() - started) / 1000;
await writeFile(out, JSON.stringify(results, null, 2) + "\n");
console.log(`\nwrote ${out} in ${results.elapsedSeconds.toFixed(1)} s`);
