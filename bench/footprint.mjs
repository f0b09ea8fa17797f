// What relaytrace weighs on an app: install size, the bundle of a small Worker, and cold start,
// each measured on what a user gets: this build packed (`npm pack`) and installed with npm into an
// empty directory beside `@opentelemetry/api` (its peer), dependencies from the registry.
//   npm run build && (cd bench/footprint && npm install) && node bench/footprint.mjs
// Options: --rounds=N (cold-start rounds, default 15), --quick (5 rounds), --only=install,bundle,cold,
// --base=<tree> (another built checkout, e.g. the last release, packed and installed the same way:
// its bundle and cold start too, as "base", in the same run), --out=<results.json path> (default
// bench/results-footprint.json).
//
// - Two installs of the tarball: "SDK 3", what npm resolves today (the newest OpenTelemetry SDK
//   line the dependency ranges admit: 0.301 / 3.x), and "SDK 2", the same with the SDK 2 line
//   (0.223 / 2.12, api 1.9) pinned beside it, as an app still on SDK 2 has it.
// - Install: the size of the SDK 3 install's node_modules, by package.
// - Bundle: bench/footprint/worker.mjs (a Worker importing relaytrace and relaytrace/exporters
//   with one OtelExporter) in each install, bundled as wrangler bundles (esbuild, the
//   workerd/worker/browser conditions, node:* left to the runtime), what each package adds, and
//   wrangler's own "Total Upload" from `wrangler deploy --dry-run` when wrangler is installed in
//   bench/footprint.
// - Cold start: fresh processes, each importing relaytrace from the SDK 3 install, making a runtime
//   with an OtelExporter sending OTLP/HTTP protobuf to a loopback receiver, making one tool call
//   and flushing (bench/footprint/cold-relaytrace.mjs), against OpenTelemetry's Node SDK (SDK 3,
//   installed in bench/footprint) doing the same with one manual span (cold-sdk-node.mjs),
//   interleaved round by round; medians, and the ratio per round.
import { execFile, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
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

/** The SDK 2 line, pinned beside the tarball: what an app still on OpenTelemetry SDK 2 holds. */
const SDK2_PINS = [
  "@opentelemetry/api@~1.9.0",
  "@opentelemetry/api-logs@~0.223.0",
  "@opentelemetry/core@~2.12.0",
  "@opentelemetry/resources@~2.12.0",
  "@opentelemetry/sdk-trace@~2.12.0",
  "@opentelemetry/sdk-logs@~0.223.0",
  "@opentelemetry/sdk-metrics@~2.12.0",
  "@opentelemetry/otlp-exporter-base@~0.223.0",
  "@opentelemetry/otlp-transformer@~0.223.0",
  "@opentelemetry/exporter-trace-otlp-http@~0.223.0",
  "@opentelemetry/exporter-trace-otlp-proto@~0.223.0",
  "@opentelemetry/exporter-logs-otlp-http@~0.223.0",
  "@opentelemetry/exporter-logs-otlp-proto@~0.223.0",
  "@opentelemetry/exporter-metrics-otlp-http@~0.223.0",
  "@opentelemetry/exporter-metrics-otlp-proto@~0.223.0",
];
/** The versions a row names its OpenTelemetry line by. */
const LINE_PACKAGES = ["@opentelemetry/api", "@opentelemetry/core", "@opentelemetry/sdk-trace"];
/**
 * The optional peers `relaytrace/exporters/signals` needs (the logs and metrics SDKs and their OTLP
 * exporters), installed beside the package for the opt-in rows only.
 */
const SIGNAL_PACKAGES = [
  "@opentelemetry/sdk-logs",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/exporter-logs-otlp-http",
  "@opentelemetry/exporter-logs-otlp-proto",
  "@opentelemetry/exporter-metrics-otlp-http",
  "@opentelemetry/exporter-metrics-otlp-proto",
];

const scratch = [];
process.on("exit", () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** `npm pack` of the built tree `root` into a scratch directory; the tarball's path and sizes. */
async function pack(root) {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-pack-"));
  scratch.push(dir);
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: root });
  const [packed] = JSON.parse(stdout);
  return { tarball: join(dir, packed.filename), tarballBytes: packed.size, unpackedBytes: packed.unpackedSize };
}

/**
 * The tarball installed with npm into an empty directory, as an app installs it: with
 * `@opentelemetry/api` (its peer; optional peers not installed) and `pins` beside it. The Worker is
 * copied in. Returns the directory and the installed versions of LINE_PACKAGES.
 */
async function install(tarball, pins = ["@opentelemetry/api"]) {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-install-"));
  scratch.push(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "install-probe", private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", tarball, ...pins], { cwd: dir, timeout: 300_000 });
  await copyFile(join(HERE, "worker.mjs"), join(dir, "worker.mjs"));
  const versions = {};
  for (const name of LINE_PACKAGES) {
    versions[name] = JSON.parse(await readFile(join(dir, "node_modules", name, "package.json"), "utf8")).version;
  }
  return { dir, relaytrace: join(dir, "node_modules/relaytrace"), versions };
}

const lineOf = (versions) => LINE_PACKAGES.map((n) => `${n.replace("@opentelemetry/", "")} ${versions[n]}`).join(", ");

async function installSize(tree, packed) {
  const modules = join(tree.dir, "node_modules");
  const sizes = new Map();
  for (const name of await readdir(modules)) {
    if (name.startsWith(".")) continue;
    const names = name.startsWith("@") ? (await readdir(join(modules, name))).map((n) => `${name}/${n}`) : [name];
    for (const n of names) sizes.set(n, await du(join(modules, n)));
  }
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  return {
    tarballBytes: packed.tarballBytes,
    unpackedBytes: packed.unpackedBytes,
    nodeModulesBytes: total,
    packages: sizes.size,
    largest: [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 12),
  };
}

async function bundle(dir, minify, entry = "worker.mjs") {
  const result = await build({
    entryPoints: [join(dir, entry)],
    absWorkingDir: dir, // the paths in the output's comments: short, the same in every run
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
  const gzipBytes = gzipSync(result.outputFiles[0].contents).length;
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
  return {
    bytes: output.bytes,
    gzipBytes,
    byPackage: [...byPackage].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => [label(name), bytes]),
  };
}

/** What a Worker bundle leaves out unless the Worker imports it: each opt-in import, and what it adds. */
const OPT_INS = ['import "relaytrace/prices";', 'import "relaytrace/exporters/signals";'];

async function optInSizes(tree) {
  const worker = await readFile(join(tree.dir, "worker.mjs"), "utf8");
  const sizes = async (entry) => {
    const [plain, minified] = [await bundle(tree.dir, false, entry), await bundle(tree.dir, true, entry)];
    return { bytes: plain.bytes, minifiedBytes: minified.bytes, minifiedGzipBytes: minified.gzipBytes };
  };
  const without = await sizes("worker.mjs");
  const rows = [];
  for (const [i, line] of [...OPT_INS, OPT_INS.join(" ")].entries()) {
    const entry = `worker-opt-in-${i}.mjs`;
    await writeFile(join(tree.dir, entry), `${line}\n${worker}`);
    rows.push({ import: line, ...(await sizes(entry)) });
  }
  return { without, rows };
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

async function bundleSize(tree) {
  const plain = await bundle(tree.dir, false);
  const minified = await bundle(tree.dir, true);
  return {
    versions: tree.versions,
    esbuildBytes: plain.bytes,
    esbuildMinifiedBytes: minified.bytes,
    byPackage: plain.byPackage,
    wrangler: await wranglerUpload(tree.dir),
  };
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

async function coldStarts(trees) {
  if (!existsSync(join(HERE, "node_modules/@opentelemetry/sdk-node"))) {
    return { skipped: "@opentelemetry/sdk-node is not installed (cd bench/footprint && npm install)" };
  }
  const receiver = await startOtlpReceiver();
  const sides = [
    { name: "relaytrace", script: "cold-relaytrace.mjs", root: trees.sdk3.relaytrace },
    { name: "sdk-node", script: "cold-sdk-node.mjs" },
    ...(trees.base ? [{ name: "base", script: "cold-relaytrace.mjs", root: trees.base.relaytrace }] : []),
  ];
  const samples = Object.fromEntries(sides.map((s) => [s.name, []]));
  try {
    for (const side of sides) await coldStart(side, receiver.url(`warmup-${side.name}`)); // file system caches warm, as for any later start
    for (let r = 0; r < rounds; r++) {
      const order = sides.map((_, i) => sides[(i + r) % sides.length]);
      for (const side of order) samples[side.name].push(await coldStart(side, receiver.url(side.name)));
    }
    const stats = await receiver.stats();
    const sdkNode = JSON.parse(await readFile(join(HERE, "node_modules/@opentelemetry/sdk-trace/package.json"), "utf8")).version;
    const result = { rounds, relaytraceLine: lineOf(trees.sdk3.versions), sdkNodeSdkTrace: sdkNode, sides: {} };
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
    if (trees.base) result.baseRatio = median(samples.base.map((s, i) => s.totalMs / samples["sdk-node"][i].totalMs));
    return result;
  } finally {
    await receiver.close();
  }
}

const machine = machineInfo();
console.log(`relaytrace footprint${quick ? " (quick: few rounds, figures rough)" : ""}`);
console.log(`machine: ${machine.cpuModel}, ${machine.cores} cores; node ${machine.node}`);
const results = { date: new Date().toISOString(), machine };

const packed = await pack(ROOT);
const trees = { sdk3: await install(packed.tarball) };
if (want("bundle")) trees.sdk2 = await install(packed.tarball, SDK2_PINS);
if (base && (want("bundle") || want("cold"))) trees.base = await install((await pack(base)).tarball);
console.log(`installed: SDK 3 (${lineOf(trees.sdk3.versions)})${trees.sdk2 ? `; SDK 2 (${lineOf(trees.sdk2.versions)})` : ""}`);

if (want("install")) {
  console.log("\n## Install size\n");
  const r = (results.install = await installSize(trees.sdk3, packed));
  console.log(
    `tarball ${kib(r.tarballBytes)} KiB (${kib(r.unpackedBytes)} KiB unpacked); installed with its dependencies and @opentelemetry/api: ` +
      `${(r.nodeModulesBytes / 1048576).toFixed(1)} MiB in ${r.packages} packages\n`,
  );
  console.log(
    table(
      ["package", "KiB"],
      r.largest.map(([name, bytes]) => [name, kib(bytes)]),
    ),
  );
}

if (want("bundle")) {
  console.log("\n## Worker bundle (bench/footprint/worker.mjs)\n");
  const rows = [
    ["SDK 3 (a fresh install)", (results.bundle = await bundleSize(trees.sdk3))],
    ["SDK 2 (0.223 / 2.12 pinned)", (results.bundleSdk2 = await bundleSize(trees.sdk2))],
    ...(trees.base ? [["base, SDK 3", (results.bundleBase = await bundleSize(trees.base))]] : []),
  ];
  const upload = (r) => r.wrangler.totalUploadKiB;
  console.log(
    table(
      ["install", "wrangler Total Upload KiB", "gzip KiB", "esbuild KiB", "esbuild minified KiB", `target ≤ ${BUNDLE_TARGET_KIB}`],
      rows.map(([label, r]) => [
        label,
        upload(r) === undefined ? "n/a" : upload(r).toFixed(1),
        r.wrangler.gzipKiB === undefined ? "n/a" : r.wrangler.gzipKiB.toFixed(1),
        kib(r.esbuildBytes),
        kib(r.esbuildMinifiedBytes),
        verdict(upload(r) === undefined ? undefined : upload(r) <= BUNDLE_TARGET_KIB),
      ]),
    ),
  );
  for (const [label, r] of rows) if (r.wrangler.skipped) console.log(`\n${label}: wrangler: ${r.wrangler.skipped}`);
  const withSignals = await install(packed.tarball, ["@opentelemetry/api", ...SIGNAL_PACKAGES]);
  const o = (results.optIns = await optInSizes(withSignals));
  console.log(`\nWhat each opt-in import adds to the SDK 3 bundle (gzip: of the minified bundle):\n`);
  const plus = (a, b) => `+${kib(a - b)}`;
  console.log(
    table(
      ["the Worker adds", "esbuild KiB", "minified KiB", "gzip KiB"],
      o.rows.map((r) => [
        r.import,
        plus(r.bytes, o.without.bytes),
        plus(r.minifiedBytes, o.without.minifiedBytes),
        plus(r.minifiedGzipBytes, o.without.minifiedGzipBytes),
      ]),
    ),
  );
  for (const [label, r] of rows.slice(0, 2)) {
    console.log(`\nWhat the esbuild bundle holds, by package: ${label}\n`);
    console.log(
      table(
        ["package", "KiB"],
        r.byPackage.slice(0, 20).map(([name, bytes]) => [name, kib(bytes)]),
      ),
    );
  }
}

if (want("cold")) {
  console.log(`\n## Cold start (import, runtime + OtelExporter, one tool call, forceFlush; fresh processes)\n`);
  const r = (results.cold = await coldStarts(trees));
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
    console.log(`relaytrace from the SDK 3 install (${r.relaytraceLine}); the Node SDK's sdk-trace ${r.sdkNodeSdkTrace}`);
    if (base) console.log(`base / sdk-node, import → flushed, per round: median ${ratio(r.baseRatio)}`);
  }
}

await writeFile(out, JSON.stringify(results, null, 2) + "\n");
console.log(`\nwrote ${out}`);
