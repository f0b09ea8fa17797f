// `relaytrace serve` in Debian's chromium: the runs list (filters, sorts, status words), a session's
// runs, a run's waterfall and detail, two runs compared with each changed value marked, the URL of
// each view surviving a reload, runs that appear while the page is open, hostile span data that
// stays text, a corrupt line shown, and 2,000 runs drawn a screen at a time. Real agent-loop runs
// in real files, served by the real server; every wait is bounded.
import { appendFile, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanIdFromUuid, traceIdFromUuid } from "../../exporters/otel/ids.js";
import { startDashboard, type DashboardServer } from "../../src/cli/dashboard/server/dashboard-server.js";
import type { AtofEvent } from "../../src/events/types.js";
import { launchChromium, type BrowserSession, type OpenedPage } from "../support/browser.js";
import { appendRuns, recordAgentRun } from "../support/dashboard-runs.js";
import { writeLargeAtof } from "../support/large-atof.js";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/browser/", import.meta.url));
const READY = '#relaytrace-dashboard[data-ready="true"][data-index-ready="true"]';
/** Waits for what the page does by itself (its next look at the server): bounded, never a sleep. */
const SOON = { timeout: 15_000 };
const HOSTILE = '</script><img src=x onerror="window.__pwned=1">';

let browser: BrowserSession;
let work: string;
let server: DashboardServer;
const runs: Record<"a" | "b" | "failed" | "halted" | "hostile", AtofEvent[]> = {} as never;

const idOf = (events: readonly AtofEvent[]) => traceIdFromUuid(events.find((e) => e.kind === "scope" && e.category === "agent")!.uuid);
const row = (events: readonly AtofEvent[]) => `[data-run-id="${idOf(events)}"]`;

async function open(url = server.url + "/"): Promise<OpenedPage> {
  const opened = await browser.open(url, READY);
  return opened;
}

/** Nothing was asked of anyone but the dashboard's own server, nothing failed, nothing ran. */
async function clean(opened: OpenedPage, base = server.url): Promise<void> {
  expect(opened.requests.filter((u) => !u.startsWith(base + "/"))).toEqual([]);
  expect(opened.errors).toEqual([]);
  expect(await opened.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  work = await mkdtemp(join(tmpdir(), "relaytrace-browser-dashboard-"));
  const dir = join(work, "runs");
  await mkdir(dir);
  runs.a = await recordAgentRun({
    sessionId: "s-1",
    userId: "ana",
    tags: ["prod"],
    temp: 4,
    evaluation: { name: "relevance", score: 0.9 },
  });
  runs.b = await recordAgentRun({ sessionId: "s-1", userId: "ana", tags: ["prod", "beta"], temp: 12, prompt: "Weather in Tromsø?" });
  runs.failed = await recordAgentRun({ sessionId: "s-2", userId: "bo", outcome: "error" });
  runs.halted = await recordAgentRun({ sessionId: "s-2", userId: "bo", outcome: "suspended" });
  runs.hostile = await recordAgentRun({
    agentName: HOSTILE,
    sessionId: "javascript:window.__pwned=1",
    userId: '<img src=x onerror="window.__pwned=1">',
    tags: ["<b>bold</b>"],
    prompt: "</script><script>window.__pwned=1</script> [link](javascript:window.__pwned=1)",
  });
  await appendRuns(join(dir, "relaytrace-atof-1.jsonl"), runs.a, runs.b);
  await appendRuns(join(dir, "relaytrace-atof-2.jsonl"), runs.failed, runs.halted, runs.hostile);
  await appendFile(join(dir, "relaytrace-atof-2.jsonl"), '{"kind":"scope", torn by a crash}\n');
  server = await startDashboard({ dir });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("relaytrace serve in chromium", () => {
  it("lists one row per run with its status word, session, user, tags, tokens and cost, and sorts by cost", async () => {
    const opened = await open();
    const { page } = opened;
    await page.waitForSelector(row(runs.hostile));
    expect(await page.locator("[data-run-id]").count()).toBe(5);
    const status = (events: AtofEvent[]) => page.locator(`${row(events)} .run-status`).textContent();
    expect([await status(runs.a), await status(runs.failed), await status(runs.halted)]).toEqual(["ok", "error", "suspended"]);
    const cells = await page.locator(`${row(runs.b)} [role=cell]`).allTextContents();
    expect(cells.slice(2, 7)).toEqual(["weather-agent", "s-1", "ana", "prodbeta", "ok"]);
    expect(cells.slice(8, 12)).toEqual(["2", "1", "134", "$0.00035"]);
    expect(await page.locator(`${row(runs.a)} [data-evaluation="relevance"]`).textContent()).toBe("relevance 0.9");
    await page.getByLabel("sort").selectOption("cost-asc");
    const ids = await page.locator("[data-run-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));
    // The failed run recorded no cost: it sorts first; then the halted one's single call.
    expect(ids.slice(0, 2)).toEqual([idOf(runs.failed), idOf(runs.halted)]);
    await page.locator('[data-sort-key="time"]').click();
    expect(await page.getByLabel("sort").inputValue()).toBe("time-desc");
    expect(await page.locator("[data-run-id]").first().getAttribute("data-run-id")).toBe(idOf(runs.hostile));
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-runs.png") });
    await clean(opened);
  });

  it("filters by session, user, tag, status and text, and a reload keeps the filters", async () => {
    const opened = await open();
    const { page } = opened;
    const shown = () => page.locator("[data-run-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")).sort());
    await page.getByLabel("session").selectOption("s-1");
    expect(await shown()).toEqual([idOf(runs.a), idOf(runs.b)].sort());
    await page.getByLabel("tag").selectOption("beta");
    expect(await shown()).toEqual([idOf(runs.b)]);
    await page.getByLabel("session").selectOption("");
    await page.getByLabel("tag").selectOption("");
    await page.getByLabel("user").selectOption("bo");
    await page.getByLabel("status").selectOption("error");
    expect(await shown()).toEqual([idOf(runs.failed)]);
    await page.getByLabel("user").selectOption("");
    await page.getByLabel("status").selectOption("");
    // Words of the input (ids are searched too: a word like "12" could be in any run's id).
    await page.getByLabel("search").fill("tromsø WEATHER");
    await page.waitForFunction(() => document.querySelectorAll("[data-run-id]").length === 1);
    expect(await shown()).toEqual([idOf(runs.b)]);
    expect(new URL(page.url()).hash).toBe("#/runs?q=troms%C3%B8+WEATHER");
    await page.reload();
    await page.waitForSelector(READY);
    await page.waitForSelector(row(runs.b));
    expect(await page.getByLabel("search").inputValue()).toBe("tromsø WEATHER");
    expect(await shown()).toEqual([idOf(runs.b)]);
    await clean(opened);
  });

  it("shows all runs of a session in time order, reached from a session id", async () => {
    const opened = await open();
    const { page } = opened;
    await page.locator(`${row(runs.halted)} [data-session-link]`).click();
    await page.waitForSelector('[data-view="session"][data-loaded="true"]');
    expect(new URL(page.url()).hash).toBe("#/session/s-2");
    const order = await page.locator(".session-run").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));
    expect(order).toEqual([idOf(runs.failed), idOf(runs.halted)]);
    expect(await page.locator(`.session-run${row(runs.failed)} .run-status`).textContent()).toBe("error");
    expect(await page.locator(`.session-run${row(runs.halted)} .turn-in`).textContent()).toContain("Weather in Oslo?");
    await page.reload();
    await page.waitForSelector('[data-view="session"][data-loaded="true"]');
    expect(await page.locator(".session-run").count()).toBe(2);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-session.png") });
    await clean(opened);
  });

  it("shows a run's waterfall and span detail, the selected span in the URL, the same after a reload", async () => {
    const opened = await open();
    const { page } = opened;
    await page.locator(`${row(runs.a)} .run-name`).click();
    await page.waitForSelector('[data-view="trace"][data-loaded="true"]');
    const starts = runs.a.filter((e) => e.kind === "scope" && e.scope_category === "start");
    const ids = await page.locator("[data-span-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-span-id")));
    expect(ids.sort()).toEqual(starts.map((e) => spanIdFromUuid(e.uuid)).sort());
    expect(await page.locator(".view-head").textContent()).toMatch(/sessions-1userana/);
    const tool = spanIdFromUuid(starts.find((e) => e.category === "tool")!.uuid);
    await page.click(`[data-span-id="${tool}"]`);
    const detail = page.locator('[data-testid="span-detail"]');
    expect(await detail.getAttribute("data-selected")).toBe(tool);
    expect(await detail.textContent()).toContain("call_1");
    expect(new URL(page.url()).hash).toBe(`#/trace/${idOf(runs.a)}/${tool}`);
    await page.reload();
    await page.waitForSelector('[data-view="trace"][data-loaded="true"]');
    expect(await detail.getAttribute("data-selected")).toBe(tool);
    expect(await page.locator(`[data-span-id="${tool}"]`).getAttribute("aria-selected")).toBe("true");
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-trace.png") });
    await clean(opened);
  });

  it("compares two picked runs side by side, each changed value its own marked element, and a reload keeps the comparison", async () => {
    const opened = await open();
    const { page } = opened;
    await page.locator(`${row(runs.b)} input[type=checkbox]`).check();
    await page.locator(`${row(runs.a)} input[type=checkbox]`).check();
    await page.getByRole("button", { name: "Compare" }).click();
    await page.waitForSelector('[data-view="compare"][data-loaded="true"]');
    expect(new URL(page.url()).hash).toBe(`#/compare/${idOf(runs.a)}/${idOf(runs.b)}`);
    const check = async () => {
      expect(await page.locator('[data-testid="diff-summary"]').textContent()).toBe("2 changes between the runs.");
      const result = page.locator('[data-change-kind="tool_result_changed"]');
      expect(await result.locator('[data-run="a"] [data-change]').allTextContents()).toEqual(["4"]);
      expect(await result.locator('[data-run="b"] [data-change]').allTextContents()).toEqual(["12"]);
      // The neighbours are there, unmarked.
      expect(await result.locator('[data-run="b"]').textContent()).toMatch(/"city": "Oslo",\s+"temp_c": 12/);
      const output = page.locator('[data-change-kind="output_changed"]');
      expect(await output.locator("[data-change]").allTextContents()).toEqual(["4", "12"]);
      const everyMark = await page.locator("[data-change], [class*=changed]").evaluateAll((els) => els.map((e) => e.textContent));
      expect(everyMark).toEqual(["4", "12", "4", "12"]);
    };
    await check();
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-compare.png"), fullPage: true });
    await page.reload();
    await page.waitForSelector('[data-view="compare"][data-loaded="true"]');
    await check();
    await clean(opened);
  });

  it("keeps hostile names, ids and inputs as text in every view: nothing runs, no element comes from the data", async () => {
    const opened = await open();
    const { page } = opened;
    await page.waitForSelector(row(runs.hostile));
    expect(await page.locator(`${row(runs.hostile)} .run-name`).textContent()).toBe(HOSTILE);
    const session = page.locator(`${row(runs.hostile)} [data-session-link]`);
    expect(await session.getAttribute("href")).toBe("#/session/javascript%3Awindow.__pwned%3D1");
    await page.getByLabel("search").fill("script");
    await session.click();
    await page.waitForSelector('[data-view="session"][data-loaded="true"]');
    expect(await page.locator(".session-run .turn-in .text").textContent()).toContain("</script><script>window.__pwned=1</script>");
    await page.locator(".session-run .run-name").click();
    await page.waitForSelector('[data-view="trace"][data-loaded="true"]');
    await page.locator("[data-span-id]").first().click();
    expect(await page.locator('[data-testid="span-detail"] h2').textContent()).toContain(HOSTILE);
    await page.goto(`${server.url}/#/compare/${idOf(runs.hostile)}/${idOf(runs.a)}`);
    await page.waitForSelector('[data-view="compare"][data-loaded="true"]');
    expect(await page.locator(".compare-run[data-run=a] h3").textContent()).toBe("A: " + HOSTILE);
    expect(await page.locator("img, script:not([src])").count()).toBe(0);
    expect(
      await page.locator("a[href]").evaluateAll((els) => els.map((e) => e.getAttribute("href")).filter((h) => !/^(#|\/files\/)/.test(h!))),
    ).toEqual([]);
    await clean(opened);
  });

  it("counts a corrupt line and names it, with every other run listed", async () => {
    const opened = await open();
    const { page } = opened;
    expect(await page.locator('[data-total="bad-lines"] .stat-value').textContent()).toBe("1");
    const line = runs.failed.length + runs.halted.length + runs.hostile.length + 1;
    expect(await page.locator('[data-testid="problems"]').textContent()).toMatch(
      new RegExp(`^relaytrace-atof-2\\.jsonl:${line}: not valid JSON`),
    );
    expect(await page.locator("[data-run-id]").count()).toBe(5);
    await clean(opened);
  });
});

describe("relaytrace serve follows its directory", () => {
  it("shows a run appended to a file, and a run in a new file, without a reload", async () => {
    const dir = join(work, "live");
    await mkdir(dir);
    const first = await recordAgentRun({ sessionId: "live" });
    await appendRuns(join(dir, "relaytrace-atof-1.jsonl"), first);
    const live = await startDashboard({ dir });
    try {
      const opened = await browser.open(live.url + "/", READY);
      const { page } = opened;
      await page.waitForSelector(row(first));
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
      const appended = await recordAgentRun({ sessionId: "live", temp: 9 });
      await appendRuns(join(dir, "relaytrace-atof-1.jsonl"), appended);
      await page.waitForSelector(row(appended), SOON);
      const rotated = await recordAgentRun({ sessionId: "live", temp: 11 });
      await appendRuns(join(dir, "relaytrace-atof-2.jsonl"), rotated);
      await page.waitForSelector(row(rotated), SOON);
      expect(await page.locator("[data-run-id]").count()).toBe(3);
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      await clean(opened, live.url);
    } finally {
      await live.close();
    }
  });

  it("draws 2,000 runs a screen at a time, and scrolls to the last", async () => {
    const dir = join(work, "many");
    await mkdir(dir);
    await writeLargeAtof(join(dir, "relaytrace-atof-1.jsonl"), { runs: 2000, children: 3, payloadBytes: 200 });
    const many = await startDashboard({ dir });
    try {
      const opened = await browser.open(many.url + "/", READY);
      const { page } = opened;
      await page.waitForFunction(
        () => document.querySelector('[data-testid="shown-count"]')?.textContent === "2,000 of 2,000 runs",
        null,
        SOON,
      );
      const drawn = await page.locator("[data-run-id]").count();
      expect(drawn).toBeGreaterThan(10);
      expect(drawn).toBeLessThan(100);
      await page.getByLabel("sort").selectOption("time-asc");
      await page.locator(".runs-scroller").evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.waitForSelector('[data-run-id] >> text="run-1999"');
      await clean(opened, many.url);
    } finally {
      await many.close();
    }
  });
});
