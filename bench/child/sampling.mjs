// Child of bench/sampling.mjs: one build, sampling unset, in a process of its own (two builds in one
// process share the scope context and favour one of them). Prints { cpuNsPerTrace, lost }.
//   node bench/child/sampling.mjs <tree> <sink> <traces> <warm-up traces>
import { loadRelaytrace } from "../lib/load.mjs";
import { samplingSetup, lostEvents } from "../lib/sampling-workload.mjs";

const [tree, sink, traces, warmup] = process.argv.slice(2);
const api = await loadRelaytrace(tree === "-" ? undefined : tree);
const setup = await samplingSetup(api, sink, undefined);
await setup.run(Number(warmup));
await setup.run(Number(traces));
const lost = lostEvents(setup.runtime);
await setup.close();
console.log(JSON.stringify({ cpuNsPerTrace: setup.cpu[1], lost }));
