// What relaytrace weighs on an app: install size, the bundle of a small Worker, and cold start.
//   npm run build && (cd bench/footprint && npm install) && node bench/footprint.mjs
// Options: --rounds=N (cold-start rounds, default 15), --quick (5 rounds), --only=install,bundle,cold,
// --base=<tree> (another built checkout, e.g. the last release: its bundle and cold start too, as
// "base", in the same run), --out=<results.json path> (default bench/results-footprint.json).
//
// - Install: `npm pack` of this build, installed with npm into an empty directory (dependencies
//   from the registry, optional peers not installed): the size of its node_modules.
// - Bundle: bench/footprint/worker.mjs (a Worker importing relaytrace and relaytrace/exporters
//   with one OtelExporter) bundled as wrangler bundles (esbuild, the workerd/worker/browser
//   conditions, node:* left to the runtime), what each package adds, and wrangler's own
//   "Total Upload" from `wrangler deploy --dry-run` when wrangler is installed in bench/footprint.
// - Cold start: fresh processes, each importing, making a runtime with an OtelExporter sending
//   OTLP/HTTP protobuf to a loopback receiver, making one tool call and flushing
//   (bench/footprint/cold-relaytrace.mjs), against OpenTelemetry's Node SDK doing the same with one
//   manual span (cold-sdk-node.mjs), interleaved round by round; medians, and the ratio per round.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { table, ratio, verdict } from "./lib/format.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { startOtlpReceiver } from "./lib/otlp-receiver.mjs";
import { median } from "./lib/stats.mjs";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HERE = fileURLToPath(new URL("./footprint/", import.meta.url));
const argv = process.argv.slice(2);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = argv.includes("--quick");
const rounds = Number(option("rounds") ?? (quick ? 5 : 15));
const only = option("only")?.split(",");
const want = (section) => !only || only.includes(section);
const base = option("base") === undefined ? undefined : resolve(option("base"));
if (base !== undefined && !existsSync(join(base, "dist/src/index.js")))
  throw new Error(`--base=${base}: no built relaytrace there (npm run build)`);
const out = option("out") ?? fileURLToPath(new URL(`./results-footprint${quick ? "-quick" : ""}.json`, import.meta.url));
/** The targets of issue #41: a Worker bundle of at most 700 KiB, a cold start at most 0.6 × the Node SDK's. */
const BUNDLE_TARGET_KIB = 700;
const COLD_START_TARGET = 0.6;

const kib = (bytes) => (bytes / 1024).toFixed(1);
const ms = (v) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");

/** Bytes of every file under `dir` (symlinks not followed). */
async function du(dir) {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await du(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** The package a node_modules path belongs to (scoped names kept whole), or undefined outside node_modules. */
function packageOf(path) {
  return /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}

async function installSize() {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-install-"));
  try {
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT });
    const [packed] = JSON.parse(stdout);
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "install-probe", private: true }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, packed.filename)], {
      cwd: dir,
      timeout: 300_000,
    });
    const modules = join(dir, "node_modules");
    const sizes = new Map();
    for (const name of await readdir(modules)) {
      if (name.startsWith(".")) continue;
      const names = name.startsWith("@") ? (await readdir(join(modules, name))).map((n) => `${name}/${n}`) : [name];
      for (const n of names) sizes.set(n, await du(join(modules, n)));
    }
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    return {
      tarballBytes: packed.size,
      unpackedBytes: packed.unpackedSize,
      nodeModulesBytes: total,
      packages: sizes.size,
      largest: [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 12),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A directory holding the Worker and a node_modules link to the tree `root`, as an app installs relaytrace. */
async function workerDir(root) {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-worker-"));
  await mkdir(join(dir, "node_modules"));
  await symlink(root.replace(/\/$/, ""), join(dir, "node_modules", "relaytrace"), "dir");
  await copyFile(join(HERE, "worker.mjs"), join(dir, "worker.mjs"));
  return dir;
}

async function bundle(dir, minify) {
  const result = await build({
    entryPoints: [join(dir, "worker.mjs")],
    bundle: true,
    write: false,
    metafile: true,
    minify,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    outdir: join(dir, "out"),
    logLevel: "silent",
  });
  const output = Object.values(result.metafile.outputs)[0];
  // Per package, and per copy of it: a package a dependency holds at another version is bundled again.
  const byPackage = new Map();
  const copies = new Map();
  for (const [file, input] of Object.entries(output.inputs)) {
    const name = packageOf(file) ?? (/(^|\/)dist\/(src|exporters)\//.test(file) ? "relaytrace" : "the Worker");
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
    const copy = /.*node_modules\/(?:@[^/]+\/)?[^/]+\//.exec(file)?.[0];
    if (copy) copies.set(name, (copies.get(name) ?? new Set()).add(copy));
  }
  const label = (name) => (copies.get(name)?.size > 1 ? `${name} (${copies.get(name).size} copies)` : name);
  return { bytes: output.bytes, byPackage: [...byPackage].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => [label(name), bytes]) };
}

async function wranglerUpload(dir) {
  const wrangler = join(HERE, "node_modules/.bin/wrangler");
  if (!existsSync(wrangler)) return { skipped: "wrangler is not installed (cd bench/footprint && npm install)" };
  await writeFile(join(dir, "wrangler.toml"), 'name = "relaytrace-footprint"\nmain = "worker.mjs"\ncompatibility_date = "2026-11-01"\n');
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" };
  const { stdout } = await run(wrangler, ["deploy", "--dry-run", "--outdir", join(dir, "wrangler-out")], {
    cwd: dir,
    env,
    timeout: 120_000,
  });
  const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(stdout);
  if (!match) return { skipped: `no "Total Upload" line in wrangler's output: ${stdout.slice(-300)}` };
  return { totalUploadKiB: Number(match[1]), gzipKiB: Number(match[2]) };
}

async function bundleSize(root) {
  const dir = await workerDir(root);
  try {
    const plain = await bundle(dir, false);
    const minified = await bundle(dir, true);
    return {
      esbuildBytes: plain.bytes,
      esbuildMinifiedBytes: minified.bytes,
      byPackage: plain.byPackage,
      wrangler: await wranglerUpload(dir),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs one cold-start child; resolves with its times and the wall time from spawn to exit. */
function coldStart(side, url) {
  return new Promise((resolve, reject) => {
    const spawned = performance.now();
    const child = spawn(process.execPath, [join(HERE, side.script), url, ...(side.root ? [side.root] : [])], {
      cwd: HERE,
      stdio: ["ignore", "pipe", "inherit"],
      // Traces only, on both sides: the Node SDK would also set up logs and metrics from these variables.
      env: { ...process.env, OTEL_LOGS_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" },
    });
    let stdout = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.on("error", reject);
    child.on("exit", (code) => {
      const wallMs = performance.now() - spawned;
      if (code !== 0) return reject(new Error(`${side.script} exited with ${code}`));
      resolve({ ...JSON.parse(stdout.trim().split("\n").pop()), wallMs });
    });
  });
}

async function coldStarts() {
  if (!existsSync(join(HERE, "node_modules/@opentelemetry/sdk-node"))) {
    return { skipped: "@opentelemetry/sdk-node is not installed (cd bench/footprint && npm install)" };
  }
  const receiver = await startOtlpReceiver();
  const sides = [
    { name: "relaytrace", script: "cold-relaytrace.mjs", root: ROOT },
    { name: "sdk-node", script: "cold-sdk-node.mjs" },
    ...(base ? [{ name: "base", script: "cold-relaytrace.mjs", root: base }] : []),
  ];
  const samples = Object.fromEntries(sides.map((s) => [s.name, []]));
  try {
    for (const side of sides) await coldStart(side, receiver.url(`warmup-${side.name}`)); // file system caches warm, as for any later start
    for (let r = 0; r < rounds; r++) {
      const order = sides.map((_, i) => sides[(i + r) % sides.length]);
      for (const side of order) samples[side.name].push(await coldStart(side, receiver.url(side.name)));
    }
    const stats = await receiver.stats();
    const result = { rounds, sides: {} };
    for (const side of sides) {
      const runs = samples[side.name];
      const received = stats[side.name]?.spans ?? 0;
      result.sides[side.name] = {
        importMs: median(runs.map((s) => s.importMs)),
        totalMs: median(runs.map((s) => s.totalMs)),
        wallMs: median(runs.map((s) => s.wallMs)),
        spansReceived: received,
        valid: received === rounds && runs.every((s) => !s.failed),
      };
    }
    const perRound = samples.relaytrace.map((s, i) => s.totalMs / samples["sdk-node"][i].totalMs);
    result.ratio = { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound) };
    result.wallRatio = median(samples.relaytrace.map((s, i) => s.wallMs / samples["sdk-node"][i].wallMs));
    if (base) result.baseRatio = median(samples.base.map((s, i) => s.totalMs / samples["sdk-node"][i].totalMs));
    return result;
  } finally {
    await receiver.close();
  }
}

const machine = machineInfo();
console.log(`relaytrace footprint${quick ? " (quick: few rounds, figures rough)" : ""}`);
console.log(`machine: ${machine.cpuModel}, ${machine.cores} cores; node ${machine.node}`);
const results = { date: new Date().toISOString(), machine };

if (want("install")) {
  console.log("\n## Install size\n");
  try {
    const r = (results.install = await installSize());
    console.log(
      `tarball ${kib(r.tarballBytes)} KiB (${kib(r.unpackedBytes)} KiB unpacked); installed with its dependencies: ` +
        `${(r.nodeModulesBytes / 1048576).toFixed(1)} MiB in ${r.packages} packages\n`,
    );
    console.log(
      table(
        ["package", "KiB"],
        r.largest.map(([name, bytes]) => [name, kib(bytes)]),
      ),
    );
  } catch (error) {
    results.install = { skipped: String(error?.message ?? error) };
    console.log(`skipped: ${results.install.skipped}`);
  }
}

if (want("bundle")) {
  console.log("\n## Worker bundle (bench/footprint/worker.mjs)\n");
  const r = (results.bundle = await bundleSize(ROOT));
  const b = base ? (results.bundleBase = await bundleSize(base)) : undefined;
  const upload = r.wrangler.totalUploadKiB;
  console.log(
    table(
      ["bundle", "KiB", "target", ""],
      [
        [
          "wrangler deploy --dry-run: Total Upload",
          upload === undefined ? "n/a" : upload.toFixed(1),
          `≤ ${BUNDLE_TARGET_KIB}`,
          upload === undefined ? "—" : verdict(upload <= BUNDLE_TARGET_KIB),
        ],
        ["wrangler: gzip", r.wrangler.gzipKiB === undefined ? "n/a" : r.wrangler.gzipKiB.toFixed(1), "", ""],
        ["esbuild as wrangler bundles", kib(r.esbuildBytes), `≤ ${BUNDLE_TARGET_KIB}`, verdict(r.esbuildBytes / 1024 <= BUNDLE_TARGET_KIB)],
        ["esbuild, minified", kib(r.esbuildMinifiedBytes), "", ""],
        ...(b
          ? [
              ["base: wrangler Total Upload", b.wrangler.totalUploadKiB?.toFixed(1) ?? "n/a", "", ""],
              ["base: esbuild as wrangler bundles", kib(b.esbuildBytes), "", ""],
              ["base: esbuild, minified", kib(b.esbuildMinifiedBytes), "", ""],
            ]
          : []),
      ],
    ),
  );
  if (r.wrangler.skipped) console.log(`\nwrangler: ${r.wrangler.skipped}`);
  console.log("\nWhat the esbuild bundle holds, by package:\n");
  console.log(
    table(
      ["package", "KiB"],
      r.byPackage.slice(0, 20).map(([name, bytes]) => [name, kib(bytes)]),
    ),
  );
}

if (want("cold")) {
  console.log(`\n## Cold start (import, runtime + OtelExporter, one tool call, forceFlush; fresh processes)\n`);
  const r = (results.cold = await coldStarts());
  if (r.skipped) console.log(`skipped: ${r.skipped}`);
  else {
    console.log(
      table(
        ["side", "import ms", "import → flushed ms", "process wall ms", "spans received"],
        Object.entries(r.sides).map(([name, s]) => [
          name,
          ms(s.importMs),
          ms(s.totalMs),
          ms(s.wallMs),
          s.valid ? String(s.spansReceived) : `INVALID (${s.spansReceived})`,
        ]),
      ),
    );
    console.log(
      `\nrelaytrace / sdk-node, import → flushed, per round: median ${ratio(r.ratio.median)} (${ratio(r.ratio.min)}–${ratio(r.ratio.max)}), ` +
        `target ≤ ${COLD_START_TARGET}×: ${verdict(r.ratio.median <= COLD_START_TARGET)}; process wall time: ${ratio(r.wallRatio)} (${rounds} rounds)`,
    );
    if (base) console.log(`base / sdk-node, import → flushed, per round: median ${ratio(r.baseRatio)}`);
  }
}

await writeFile(out, JSON.stringify(results, null, 2) + "\n");
console.log(`\nwrote ${out}`);
