// The local dashboard at scale: `npm run bench:dashboard` (the browser row needs Debian's chromium).
// A directory of agent-shaped ATOF runs, written as a rotating writer leaves it (several *.jsonl
// files, names in write order), served by `relaytrace serve` in a child process: how long until
// its index has read every file, the server's memory (RSS now and at its peak), how long the runs
// list, one run's waterfall and a comparison take to answer, and in headless chromium how long
// until the page lists every run. Ratios are against the 1/10 directory of the same run.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { machineInfo } from "./lib/machine.mjs";
import { table } from "./lib/format.mjs";

const CLI = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
const CHROMIUM = process.env.RELAYTRACE_CHROMIUM ?? "/usr/bin/chromium";
const QUICK = process.argv.includes("--quick");
/**
 * Directories: runs, files the runs are spread over (a rotation every ~20 MB at full size) and
 * their shape: `agent` runs of 5 model calls carrying ~16 KB of conversation each and 10 tool
 * calls (~100 KB a run), or `wide` runs of 120 small tool calls (~240 lines of ~400 bytes a run:
 * the most lines, and uuids, the index keeps per MB).
 */
const SIZES = QUICK
  ? [{ runs: 200, files: 2, shape: "agent" }]
  : [
      { runs: 200, files: 2, shape: "agent" },
      { runs: 2000, files: 10, shape: "agent" },
      { runs: 2000, files: 10, shape: "wide" },
    ];
/** Characters of conversation a model call sends: the run's share of the directory's bytes. */
const BODY_CHARS = 16_500;
/** Tool calls of a `wide` run. */
const WIDE_TOOLS = 120;

const uuid = (run, n) => `01a3${String(run).padStart(8, "0")}-0000-7000-8000-${String(n).padStart(12, "0")}`;

/** One agent run's lines: an agent scope, then 5 model calls with their conversation, 2 tools after each (or WIDE_TOOLS tools). */
function* agentRun(run, t0, filler, shape) {
  let t = t0;
  const at = () => {
    t += 1375;
    const ms = Math.floor(t / 1000);
    return new Date(ms).toISOString().slice(0, 19) + "." + String(t % 1_000_000).padStart(6, "0") + "Z";
  };
  const context = { session_id: `session-${Math.floor(run / 4)}`, user_id: `user-${run % 37}`, tags: run % 3 === 0 ? ["prod"] : ["beta"] };
  const ev = (phase, id, parent, name, category, extra = {}) =>
    JSON.stringify({
      kind: "scope",
      scope_category: phase,
      atof_version: "0.1",
      uuid: id,
      parent_uuid: parent,
      timestamp: at(),
      name,
      attributes: [],
      category,
      category_profile: null,
      data: null,
      data_schema: null,
      metadata: { ...context, ...(phase === "end" ? { "otel.status_code": run % 50 === 0 ? "ERROR" : "OK" } : {}) },
      ...extra,
    });
  const agent = uuid(run, 0);
  yield ev("start", agent, null, "support-agent", "agent", { data: { prompt: `ticket ${run}: the printer is on fire` } });
  let n = 1;
  if (shape === "wide") {
    for (let k = 0; k < WIDE_TOOLS; k++) {
      const id = uuid(run, n++);
      yield ev("start", id, agent, "lookup", "tool", { data: { q: k } });
      yield ev("end", id, agent, "lookup", "tool", { data: { n: k } });
    }
  }
  for (let turn = 0; turn < (shape === "wide" ? 0 : 5); turn++) {
    const llm = uuid(run, n++);
    const messages = [{ role: "user", content: `ticket ${run} turn ${turn} ${filler}` }];
    yield ev("start", llm, agent, "openai.chat_completions", "llm", {
      category_profile: { model_name: "gpt-4.1-mini" },
      data: { content: { model: "gpt-4.1-mini", messages } },
      data_schema: { name: "openai/chat-completions", version: "1" },
    });
    yield ev("end", llm, agent, "openai.chat_completions", "llm", {
      category_profile: { model_name: "gpt-4.1-mini", cost: { total: 0.00042, currency: "USD", input: 0.0003, output: 0.00012 } },
      data: {
        model: "gpt-4.1-mini",
        choices: [{ message: { role: "assistant", content: `step ${turn}: looking it up` } }],
        usage: { prompt_tokens: 3800, completion_tokens: 30, total_tokens: 3830 },
      },
      data_schema: { name: "openai/chat-completions", version: "1" },
    });
    for (const tool of ["lookup", "notify"]) {
      const id = uuid(run, n++);
      yield ev("start", id, agent, tool, "tool", { category_profile: { tool_call_id: `c${run}_${turn}_${tool}` }, data: { q: "printer" } });
      yield ev("end", id, agent, tool, "tool", { data: { output: `found ${run % 7} manuals`, temp_c: run % 30 } });
    }
  }
  yield ev("end", agent, null, "support-agent", "agent", { data: { status: "done", text: `ticket ${run} closed` } });
}

/** Writes `runs` runs over `files` files, in order, as a rotating writer does. */
async function writeDirectory(dir, runs, files, shape) {
  await mkdir(dir, { recursive: true });
  const filler = "x".repeat(BODY_CHARS);
  const perFile = Math.ceil(runs / files);
  for (let f = 0; f < files; f++) {
    const out = createWriteStream(join(dir, `relaytrace-atof-${String(f).padStart(4, "0")}.jsonl`), { highWaterMark: 1 << 20 });
    for (let run = f * perFile; run < Math.min(runs, (f + 1) * perFile); run++) {
      for (const line of agentRun(run, 1_800_000_000_000_000 + run * 60_000_000, filler, shape)) {
        if (!out.write(line + "\n")) await new Promise((r) => out.once("drain", r));
      }
    }
    await new Promise((resolve, reject) => out.end((e) => (e ? reject(e) : resolve())));
  }
  let bytes = 0;
  for (let f = 0; f < files; f++) bytes += (await stat(join(dir, `relaytrace-atof-${String(f).padStart(4, "0")}.jsonl`))).size;
  return bytes;
}

async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rssMB: kb("VmRSS") / 1024, peakMB: kb("VmHWM") / 1024 };
}

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/** Serves `dir` in a child process; measures the index, the answers and (with chromium) the page. */
async function measure(dir, runs, browser) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      if (out.includes("\n")) resolve(out.split("\n")[0].split(" ").pop());
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
  const listenMs = performance.now() - t0;
  try {
    let readyMs;
    for (;;) {
      const answer = await (await fetch(`${url}/api/runs?epoch=1&since=1e15`)).json();
      if (answer.ready) {
        readyMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const afterIndex = await memoryOf(child.pid);
    const list = await timed(async () => (await fetch(`${url}/api/runs`)).text());
    const ids = JSON.parse(list.value).runs.map((r) => r.id);
    if (ids.length !== runs) throw new Error(`${ids.length} runs listed, ${runs} written`);
    const trace = await timed(async () => (await fetch(`${url}/api/trace/${ids[Math.floor(ids.length / 2)]}`)).text());
    const compare = await timed(async () => (await fetch(`${url}/api/compare?a=${ids[1]}&b=${ids[2]}`)).text());
    let pageMs = NaN;
    if (browser) {
      const page = await browser.newPage();
      const t = performance.now();
      await page.goto(url + "/");
      const expected = `${runs.toLocaleString("en-US")} of ${runs.toLocaleString("en-US")} runs`;
      await page.waitForFunction((text) => document.querySelector('[data-testid="shown-count"]')?.textContent === text, expected, {
        timeout: 60_000,
      });
      await page.locator("[data-run-id] .run-name").first().waitFor();
      pageMs = performance.now() - t;
      await page.close();
    }
    const end = await memoryOf(child.pid);
    return {
      listenMs,
      readyMs,
      rssAfterIndexMB: afterIndex.rssMB,
      peakMB: end.peakMB,
      listMs: list.ms,
      listKB: Buffer.byteLength(list.value) / 1024,
      traceMs: trace.ms,
      traceKB: Buffer.byteLength(trace.value) / 1024,
      compareMs: compare.ms,
      pageMs,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

async function launchBrowser(profile) {
  try {
    await stat(CHROMIUM);
  } catch {
    console.log(`(no ${CHROMIUM}: the page row is skipped; apt-get install chromium)`);
    return undefined;
  }
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 800 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
}

const work = await mkdtemp(join(tmpdir(), "relaytrace-bench-dashboard-"));
const profile = await mkdtemp(join(tmpdir(), "relaytrace-bench-chromium-"));
const browser = await launchBrowser(profile);
const m = machineInfo();
console.log(`relaytrace serve at scale (node ${process.version}, ${m.cpuModel}, ${m.cores} cores)`);
const rows = [];
try {
  for (const size of SIZES) {
    const dir = join(work, `runs-${size.runs}-${size.shape}`);
    const bytes = await writeDirectory(dir, size.runs, size.files, size.shape);
    rows.push({ ...size, mb: bytes / 1e6, ...(await measure(dir, size.runs, browser)) });
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await browser?.close();
  await rm(profile, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
}
const base = rows[0];
const f0 = (v) => (Number.isFinite(v) ? v.toFixed(0) : "n/a");
const ratio = (v, b) => (Number.isFinite(v) && Number.isFinite(b) && b > 0 ? `${(v / b).toFixed(1)}×` : "n/a");
console.log("");
console.log(
  table(
    [
      "runs",
      "shape",
      "files",
      "MB",
      "index ready ms",
      `vs ${base.runs}`,
      "RSS MB",
      "peak RSS MB",
      "runs list ms (KB)",
      "one run ms (KB)",
      "compare ms",
      "page lists all ms",
    ],
    rows.map((r) => [
      r.runs.toLocaleString("en-US"),
      r.shape,
      r.files,
      r.mb.toFixed(0),
      f0(r.readyMs),
      ratio(r.readyMs, base.readyMs),
      f0(r.rssAfterIndexMB),
      f0(r.peakMB),
      `${f0(r.listMs)} (${f0(r.listKB)})`,
      `${f0(r.traceMs)} (${f0(r.traceKB)})`,
      f0(r.compareMs),
      f0(r.pageMs),
    ]),
  ),
);
