// The targets table's pairs in a fresh process run with --expose-gc (gc between blocks).
// argv: <json cfg>. Prints one JSON line.
import { loadRelaytrace } from "../lib/load.mjs";
import { runTargets } from "../suites/targets.mjs";

const cfg = JSON.parse(process.argv[2]);
const api = await loadRelaytrace();
const result = await runTargets(api, cfg);
process.stdout.write(JSON.stringify(result) + "\n");
