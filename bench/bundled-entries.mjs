// Would shipping bundled entry points make relaytrace start faster? Packs this build (npm pack),
// makes a second tarball whose entry points are bundled with esbuild (bench/lib/bundle-entries.mjs),
// installs each into an empty directory with @opentelemetry/api, and runs the cold start of
// bench/footprint.mjs in fresh processes against each and against OpenTelemetry's Node SDK
// (installed beside them), interleaved round by round.
//   npm run build && node bench/bundled-entries.mjs [--rounds=15] [--base=<built checkout>] [--keep]
// --base packs another built checkout too (e.g. the last release), as a fourth side. Wall times
// swing with the machine's load; the CPU time of each start (user + system, all its threads) much less.
// Needs the npm registry (the installs). Prints, per side, the median import ms and
// import → flushed ms with their spread (min–max), the modules a start loads, and the per-round
// ratios bundled / plain and each / sdk-node.
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { bundleEntries } from "./lib/bundle-entries.mjs";
import { table } from "./lib/format.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { startOtlpReceiver } from "./lib/otlp-receiver.mjs";
import { median } from "./lib/stats.mjs";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const rounds = Number(option("rounds") ?? 15);
const keep = process.argv.includes("--keep");
const base = option("base");
// What bench/footprint.mjs compares with, at its versions; the api is installed beside relaytrace too.
const FOOTPRINT = JSON.parse(await readFile(join(ROOT, "bench/footprint/package.json"), "utf8")).devDependencies;
const SDK_PACKAGES = [
  "@opentelemetry/api",
  "@opentelemetry/sdk-node",
  "@opentelemetry/sdk-trace",
  "@opentelemetry/exporter-trace-otlp-proto",
].map((name) => `${name}@${FOOTPRINT[name]}`);

// One cold start against the installed package: the scenario of bench/footprint/cold-relaytrace.mjs,
// importing relaytrace by name as an app does. RELAYTRACE_BENCH_MODULES=1 counts the modules loaded instead.
const COLD_RELAYTRACE = `
if (process.env.RELAYTRACE_BENCH_MODULES) {
  const { registerHooks } = await import("node:module");
  const loaded = [];
  registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) });
  process.on("exit", () => {
    const own = loaded.filter((u) => u.includes("/node_modules/relaytrace/")).length;
    const builtins = loaded.filter((u) => u.startsWith("node:")).length;
    console.error(JSON.stringify({ modules: loaded.length - builtins, own }));
  });
}
const started = performance.now();
const startCpu = process.cpuUsage();
const { createRuntime } = await import("relaytrace");
const { OtelExporter } = await import("relaytrace/exporters");
const imported = performance.now();
const runtime = createRuntime();
const exporter = new OtelExporter({ projection: "gen_ai", endpoint: process.argv[2] });
exporter.register(runtime);
await runtime.executeTool("lookup_weather", { city: "Paris" }, (args) => ({ result: { city: args.city, sky: "sunny" } }));
await runtime.forceFlush();
const flushed = performance.now();
const cpu = process.cpuUsage(startCpu);
const failed = exporter.diagnostics().length > 0;
console.log(JSON.stringify({ importMs: imported - started, totalMs: flushed - started, cpuMs: (cpu.user + cpu.system) / 1000, failed }));
process.exit(0);
`;

async function npm(args, cwd) {
  const { stdout } = await run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, maxBuffer: 16 << 20 });
  return stdout.trim();
}

async function pack(dir, destination) {
  const name = (await npm(["pack", "--ignore-scripts", "--pack-destination", destination], dir)).split("\n").pop();
  return join(destination, name);
}

async function install(dir, packages, script) {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "cold-start", private: true, type: "module" }));
  await npm(["install", ...packages], dir);
  await writeFile(join(dir, "cold.mjs"), script);
}

function coldStart(dir, url, env = {}) {
  return new Promise((resolve, reject) => {
    const spawned = performance.now();
    const child = spawn(process.execPath, [join(dir, "cold.mjs"), url], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OTEL_LOGS_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`cold start in ${dir} exited with ${code}: ${stderr}`));
      resolve({ ...JSON.parse(stdout.trim().split("\n").pop()), wallMs: performance.now() - spawned, stderr });
    });
  });
}

const work = await mkdtemp(join(tmpdir(), "relaytrace-bundled-entries-"));
const receiver = await startOtlpReceiver();
try {
  const plainTarball = await pack(ROOT, work);
  const staged = join(work, "staged");
  await mkdir(staged);
  await run("tar", ["-xzf", plainTarball, "-C", staged]);
  const bundled = await bundleEntries(join(staged, "package"));
  await mkdir(join(work, "bundled-tarball"));
  const bundledTarball = await pack(join(staged, "package"), join(work, "bundled-tarball"));

  const sides = [
    { name: "plain", dir: join(work, "plain") },
    { name: "bundled", dir: join(work, "bundled") },
    { name: "sdk-node", dir: join(work, "sdk-node") },
  ];
  await install(sides[0].dir, [plainTarball, SDK_PACKAGES[0]], COLD_RELAYTRACE);
  await install(sides[1].dir, [bundledTarball, SDK_PACKAGES[0]], COLD_RELAYTRACE);
  await install(sides[2].dir, SDK_PACKAGES, "");
  if (base !== undefined) {
    await mkdir(join(work, "base-tarball"));
    const baseTarball = await pack(base, join(work, "base-tarball"));
    sides.push({ name: "base", dir: join(work, "base") });
    await install(sides[3].dir, [baseTarball, SDK_PACKAGES[0]], COLD_RELAYTRACE);
  }
  // bench/footprint's Node SDK start, timing its CPU too.
  const sdkScript = (await readFile(join(ROOT, "bench/footprint/cold-sdk-node.mjs"), "utf8"))
    .replace("const started = performance.now();", "const started = performance.now();\nconst startCpu = process.cpuUsage();")
    .replace(
      "totalMs: flushed - started,",
      "totalMs: flushed - started, cpuMs: ((c) => (c.user + c.system) / 1000)(process.cpuUsage(startCpu)),",
    );
  if (!sdkScript.includes("cpuMs")) throw new Error("bench/footprint/cold-sdk-node.mjs changed: cannot time its CPU");
  await writeFile(join(sides[2].dir, "cold.mjs"), sdkScript);
  const relaytraceSides = sides.filter((side) => side.name !== "sdk-node");

  const modules = {};
  for (const side of relaytraceSides) {
    const { stderr } = await coldStart(side.dir, receiver.url("count"), { RELAYTRACE_BENCH_MODULES: "1" });
    modules[side.name] = JSON.parse(stderr.trim().split("\n").pop());
  }
  const samples = Object.fromEntries(sides.map((s) => [s.name, []]));
  for (const side of sides) await coldStart(side.dir, receiver.url(`warmup-${side.name}`)); // file system caches warm
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(i + r) % sides.length];
      samples[side.name].push(await coldStart(side.dir, receiver.url(side.name)));
    }
  }
  const stats = await receiver.stats();

  const machine = machineInfo();
  console.log(`relaytrace bundled entry points: cold start, ${rounds} interleaved rounds`);
  console.log(`machine: ${machine.cpuModel}, ${machine.cores} cores; node ${machine.node}`);
  console.log(`bundled: ${bundled.entries.length} entry points, ${bundled.chunks} shared chunks\n`);
  const spread = (values) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
  const rows = sides.map((side) => {
    const runs = samples[side.name];
    const received = stats[side.name]?.spans ?? 0;
    return [
      side.name,
      spread(runs.map((s) => s.importMs)),
      spread(runs.map((s) => s.totalMs)),
      spread(runs.map((s) => s.cpuMs)),
      spread(runs.map((s) => s.wallMs)),
      modules[side.name] ? `${modules[side.name].modules} (${modules[side.name].own} relaytrace)` : "",
      received === rounds && runs.every((s) => !s.failed) ? "yes" : `no (${received} spans)`,
    ];
  });
  console.log(
    table(
      ["side", "import ms", "import → flushed ms", "CPU ms, import → flushed", "process wall ms", "modules", "all spans received"],
      rows,
    ),
  );
  const perRound = (a, b, key) => samples[a].map((s, i) => s[key] / samples[b][i][key]);
  const ratioLine = (a, b, key) => {
    const r = perRound(a, b, key);
    const what = { importMs: "import", totalMs: "import → flushed", cpuMs: "CPU import → flushed" }[key];
    return `${a} / ${b}, ${what}: median ${median(r).toFixed(2)}× (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}×)`;
  };
  console.log();
  console.log(ratioLine("bundled", "plain", "importMs"));
  console.log(ratioLine("bundled", "plain", "totalMs"));
  console.log(ratioLine("plain", "sdk-node", "totalMs"));
  console.log(ratioLine("bundled", "sdk-node", "totalMs"));
  console.log(ratioLine("bundled", "plain", "cpuMs"));
  console.log(ratioLine("plain", "sdk-node", "cpuMs"));
  console.log(ratioLine("bundled", "sdk-node", "cpuMs"));
  if (base !== undefined) {
    console.log(ratioLine("plain", "base", "totalMs"));
    console.log(ratioLine("plain", "base", "cpuMs"));
    console.log(ratioLine("base", "sdk-node", "totalMs"));
    console.log(ratioLine("base", "sdk-node", "cpuMs"));
  }
  for (const key of ["totalMs", "cpuMs"]) {
    const saved = samples.plain.map((s, i) => s[key] - samples.bundled[i][key]);
    const what = key === "totalMs" ? "import → flushed" : "CPU import → flushed";
    console.log(
      `plain − bundled, ${what}, per round: median ${median(saved).toFixed(1)} ms (${Math.min(...saved).toFixed(1)}–${Math.max(...saved).toFixed(1)})`,
    );
  }
} finally {
  await receiver.close();
  if (keep) console.log(`\nkept ${work}`);
  else await rm(work, { recursive: true, force: true });
}
