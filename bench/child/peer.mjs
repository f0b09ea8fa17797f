// One child process of the peer comparison. argv: <json config>. Prints one JSON line.
// With `libs` = one peer, only that library's context storage is active in this process.
import { loadRelaytrace } from "../lib/load.mjs";
import { peerFactories } from "../lib/peers.mjs";
import { interleave } from "../lib/stats.mjs";
import { loop, toolFn } from "../lib/workload.mjs";

const cfg = JSON.parse(process.argv[2]);
const needsRelaytrace = cfg.libs.some((l) => l.startsWith("relaytrace"));
const api = needsRelaytrace ? await loadRelaytrace() : undefined;
const holders = {};
const variants = [
  { name: "direct", run: (n) => loop(n, toolFn) },
  ...cfg.libs.map((lib) => ({
    name: lib,
    setup: async () => void (holders[lib] = await peerFactories[lib](api)),
    run: (n) => loop(n, holders[lib].call),
    afterRound: () => holders[lib].runtime?.flush(),
    teardown: () => holders[lib].close(),
  })),
];
const stats = await interleave(variants, cfg);
process.stdout.write(JSON.stringify(stats) + "\n");
