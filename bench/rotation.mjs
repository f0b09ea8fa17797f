// The cost of ATOF file rotation: `node bench/rotation.mjs [--quick]` (after `npm run build`).
// The same agent-shaped events (~1 KB lines) are written by the file exporter without rotation
// and with `rotate` at three sizes (with `keep`, so old files are removed as it goes); blocks of
// each variant are interleaved in one run, and each figure is the median of the rounds. The
// ratio is against no rotation in the same run. A rotation closes (fsync) and opens a file, and
// with `keep` lists the directory and removes the oldest file.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AtofExporter } from "../dist/exporters/atof/index.js";

const quick = process.argv.includes("--quick");
const EVENTS = quick ? 20_000 : 100_000;
const ROUNDS = quick ? 3 : 7;
const payload = "x".repeat(800);

const VARIANTS = [
  { label: "no rotation", rotate: undefined },
  { label: "rotate maxBytes 16 MiB, keep 10", rotate: { maxBytes: 16 * 1024 * 1024, keep: 10 } },
  { label: "rotate maxBytes 1 MiB, keep 10", rotate: { maxBytes: 1024 * 1024, keep: 10 } },
  { label: "rotate maxBytes 64 KiB, keep 10", rotate: { maxBytes: 64 * 1024, keep: 10 } },
];

function event(i) {
  return {
    kind: "mark",
    atof_version: "0.1",
    uuid: `0190a2b4-0000-7000-8000-${String(i).padStart(12, "0")}`,
    parent_uuid: null,
    timestamp: 1_772_366_400_000_000 + i,
    name: "bench",
    category: null,
    category_profile: null,
    data: { i, payload },
    data_schema: null,
    metadata: null,
  };
}

async function once(root, variant) {
  const dir = await mkdtemp(join(root, "run-"));
  const exporter = new AtofExporter({ type: "file", outputDirectory: dir, ...(variant.rotate ? { rotate: variant.rotate } : {}) });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < EVENTS; i++) {
    exporter.onEvent(event(i));
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve)); // an app that yields now and then
  }
  await exporter.shutdown();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const files = (await readdir(dir)).filter((f) => f.endsWith(".jsonl")).length;
  if (exporter.diagnostics().length > 0) throw new Error(JSON.stringify(exporter.diagnostics()));
  await rm(dir, { recursive: true, force: true });
  return { ms, files };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const root = await mkdtemp(join(tmpdir(), "relaytrace-bench-rotation-"));
try {
  const times = VARIANTS.map(() => []);
  const files = VARIANTS.map(() => 0);
  await once(root, VARIANTS[0]); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (let v = 0; v < VARIANTS.length; v++) {
      const r = await once(root, VARIANTS[(v + round) % VARIANTS.length]);
      const at = (v + round) % VARIANTS.length;
      times[at].push(r.ms);
      files[at] = r.files;
    }
  }
  const base = median(times[0]);
  console.log(
    `ATOF file rotation: ${EVENTS.toLocaleString("en-US")} events of ~1 KB, median of ${ROUNDS} rounds, Node ${process.versions.node}\n`,
  );
  console.log("| variant | files left | ms | events/s | vs no rotation |");
  console.log("|---|---:|---:|---:|---:|");
  VARIANTS.forEach((v, i) => {
    const ms = median(times[i]);
    const rate = Math.round((EVENTS / ms) * 1000).toLocaleString("en-US");
    console.log(`| ${v.label} | ${files[i]} | ${ms.toFixed(0)} | ${rate} | ${(ms / base).toFixed(2)}× |`);
  });
} finally {
  await rm(root, { recursive: true, force: true });
}
