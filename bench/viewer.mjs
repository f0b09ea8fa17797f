// The HTML viewer at scale: `npm run bench:viewer` (needs Debian's chromium: apt-get install chromium).
// For 1,000 / 10,000 / 100,000 spans of agent-shaped ATOF: how long `relaytrace view` takes, how
// big the page is, and in headless chromium how long until the first screen is interactive, a
// click shows a span's detail, and a search over every span answers. Ratios are against the
// 1,000-span file of the same run.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const CLI = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
const CHROMIUM = process.env.RELAYTRACE_CHROMIUM ?? "/usr/bin/chromium";
const SIZES = process.argv.includes("--quick") ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const ROUNDS = process.argv.includes("--quick") ? 1 : 3;
const SPANS_PER_RUN = 16; // an agent, 5 model calls, 10 tool calls

/** One agent run: agent → 5 × (llm, 2 tools), with small bodies and a mark per tool. */
function agentRun(lines, run, t0) {
  const id = (n) => `01a2${String(run).padStart(8, "0")}-0000-7000-8000-${String(n).padStart(12, "0")}`;
  let t = t0;
  const at = () => new Date(Math.floor((t += 137) / 1000)).toISOString().slice(0, 19) + "." + String(t % 1_000_000).padStart(6, "0") + "Z";
  const ev = (scope_category, uuid, parent, name, category, extra = {}) =>
    lines.push(
      JSON.stringify({
        kind: "scope",
        scope_category,
        atof_version: "0.1",
        uuid,
        parent_uuid: parent,
        timestamp: at(),
        name,
        attributes: [],
        category,
        category_profile: null,
        data: null,
        data_schema: null,
        metadata: scope_category === "end" ? { "otel.status_code": run % 97 === 0 && category === "tool" ? "ERROR" : "OK" } : null,
        ...extra,
      }),
    );
  const agent = id(0);
  ev("start", agent, null, "support-agent", "agent", { data: { prompt: `ticket ${run}: the printer is on fire` } });
  let n = 1;
  for (let turn = 0; turn < 5; turn++) {
    const llm = id(n++);
    ev("start", llm, agent, "openai.chat_completions", "llm", {
      category_profile: { model_name: "gpt-4.1-mini" },
      data: { content: { model: "gpt-4.1-mini", messages: [{ role: "user", content: `turn ${turn} of ticket ${run}` }] } },
    });
    ev("end", llm, agent, "openai.chat_completions", "llm", {
      data: {
        model: "gpt-4.1-mini",
        choices: [
          {
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: `c${run}_${turn}`, type: "function", function: { name: "lookup", arguments: '{"q":"printer"}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
      },
    });
    for (let k = 0; k < 2; k++) {
      const tool = id(n++);
      ev("start", tool, agent, k === 0 ? "lookup" : "notify", "tool", {
        category_profile: { tool_call_id: `c${run}_${turn}_${k}` },
        data: { q: "printer" },
      });
      lines.push(
        JSON.stringify({
          kind: "mark",
          atof_version: "0.1",
          uuid: id(1000 + n),
          parent_uuid: tool,
          timestamp: at(),
          name: "cache.lookup",
          category: null,
          category_profile: null,
          data: { hit: k === 0 },
          data_schema: null,
          metadata: null,
        }),
      );
      ev("end", tool, agent, k === 0 ? "lookup" : "notify", "tool", { data: { output: "found 3 manuals" } });
    }
  }
  ev("end", agent, null, "support-agent", "agent", { data: { status: "done" } });
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const work = await mkdtemp(join(tmpdir(), "relaytrace-bench-viewer-"));
const profile = await mkdtemp(join(tmpdir(), "relaytrace-bench-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1400, height: 800 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
console.log(
  `relaytrace viewer at scale (node ${process.version}, ${execFileSync(CHROMIUM, ["--version"]).toString().trim()}), median of ${ROUNDS}`,
);
const rows = [];
try {
  for (const spans of SIZES) {
    const lines = [];
    for (let run = 0; run < spans / SPANS_PER_RUN; run++) agentRun(lines, run, 1_800_000_000_000_000 + run * 10_000_000);
    const atof = join(work, `${spans}.jsonl`);
    await writeFile(atof, lines.join("\n") + "\n");
    const html = join(work, `${spans}.html`);
    const viewMs = [];
    const readyMs = [];
    const clickMs = [];
    const searchMs = [];
    let heapMB = 0;
    for (let r = 0; r < ROUNDS; r++) {
      let t = performance.now();
      execFileSync(process.execPath, [CLI, "view", atof, "-o", html], { stdio: "ignore" });
      viewMs.push(performance.now() - t);
      const page = await browser.newPage();
      t = performance.now();
      await page.goto(pathToFileURL(html).href);
      await page.waitForSelector('#relaytrace-viewer[data-ready="true"]', { timeout: 120_000 });
      readyMs.push(performance.now() - t);
      t = performance.now();
      await page.locator("[data-span-id]").nth(3).click();
      await page.waitForSelector('[data-testid="span-detail"] h2');
      clickMs.push(performance.now() - t);
      t = performance.now();
      await page.fill('[data-testid="search"]', "notify");
      await page.waitForFunction((_n) => document.querySelector('[data-testid="shown-count"]')?.textContent?.includes(" of "), spans);
      searchMs.push(performance.now() - t);
      heapMB = Math.max(heapMB, (await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0)) / 1024 / 1024);
      await page.close();
    }
    rows.push({
      spans,
      events: lines.length,
      atofMB: (await stat(atof)).size / 1e6,
      htmlMB: (await stat(html)).size / 1e6,
      viewMs: median(viewMs),
      readyMs: median(readyMs),
      clickMs: median(clickMs),
      searchMs: median(searchMs),
      heapMB,
    });
  }
} finally {
  await browser.close();
  await rm(profile, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
}
const base = rows[0];
const pad = (s, n) => String(s).padStart(n);
console.log("");
console.log(
  `| spans   | events  | ATOF MB | page MB | view (node) | first screen interactive | click → detail | search all | JS heap MB | first screen vs ${base.spans.toLocaleString("en-US")} |`,
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${pad(r.spans.toLocaleString("en-US"), 7)} | ${pad(r.events.toLocaleString("en-US"), 7)} | ${pad(r.atofMB.toFixed(1), 7)} | ${pad(r.htmlMB.toFixed(1), 7)} | ${pad(r.viewMs.toFixed(0), 8)} ms | ${pad(r.readyMs.toFixed(0), 18)} ms | ${pad(r.clickMs.toFixed(0), 11)} ms | ${pad(r.searchMs.toFixed(0), 7)} ms | ${pad(r.heapMB.toFixed(0), 10)} | ${(r.readyMs / base.readyMs).toFixed(1)}× |`,
  );
}
