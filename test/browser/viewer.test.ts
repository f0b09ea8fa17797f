import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanIdFromUuid } from "../../exporters/otel/ids.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";
import { runDemo } from "../../src/cli/demo-scenario.js";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { launchChromium, type BrowserSession, type OpenedPage } from "../support/browser.js";

/** Screenshots are kept for people to look at (the folder is ignored by git). */
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/browser/", import.meta.url));

const quiet: Io = { out: () => undefined, err: () => undefined, progress: () => undefined };
let browser: BrowserSession;
let work: string;
let events: AtofEvent[];
let trajectory: AtifTrajectory;
let demoPage: string;

async function view(files: string[], out: string): Promise<string> {
  const path = join(work, out);
  expect(await main(["view", ...files, "-o", path], quiet)).toBe(0);
  return pathToFileURL(path).href;
}

async function settled(opened: OpenedPage, shot: string): Promise<void> {
  await opened.page.screenshot({ path: join(ARTIFACTS, `${shot}.png`) });
  expect(opened.requests).toEqual([]);
  expect(opened.errors).toEqual([]);
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  work = await mkdtemp(join(tmpdir(), "relaytrace-browser-"));
  const demo = await runDemo({ outDir: join(work, "demo"), projection: "full" });
  events = parseAtof(await readFile(demo.atofPath, "utf8")).events;
  trajectory = JSON.parse(await readFile(demo.atifPaths[0]!, "utf8")) as AtifTrajectory;
  demoPage = await view([demo.atofPath, ...demo.atifPaths], "demo.html");
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe("the viewer page in chromium", () => {
  it("has one row per span of the demo's ATOF, with the OTel span ids and statuses", async () => {
    const opened = await browser.open(demoPage);
    const { page } = opened;
    const starts = events.filter((e) => e.kind === "scope" && e.scope_category === "start");
    const rows = page.locator("[data-span-id]");
    expect(await rows.count()).toBe(starts.length);
    const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-span-id")));
    expect(ids.sort()).toEqual(starts.map((e) => spanIdFromUuid(e.uuid)).sort());
    const statuses = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    expect(new Set(statuses)).toEqual(new Set(["OK"]));
    await expect(page.locator('[data-total="spans"] .stat-value').textContent()).resolves.toBe(String(starts.length));
    await expect(page.locator('[data-total="tokens"] .stat-value').textContent()).resolves.toBe("508");
    await settled(opened, "demo-waterfall");
  });

  it("shows a selected span's detail: tool call id, annotation, owned marks, suspension story", async () => {
    const opened = await browser.open(demoPage);
    const { page } = opened;
    const weather = events.find((e) => e.name === "get_weather")!;
    await page.click(`[data-span-id="${spanIdFromUuid(weather.uuid)}"]`);
    const detail = page.locator('[data-testid="span-detail"]');
    const text = (await detail.textContent())!;
    expect(text).toContain("call_weather_1");
    expect(text).toContain("demo-weather-service");
    expect(text).toContain("cache.lookup");
    expect(text).toContain("(pending mark)");
    await page.locator('[data-span-id] >> text="notify_customer"').first().click();
    expect(await detail.textContent()).toMatch(/This call suspended[\s\S]*resumed after/);
    await settled(opened, "demo-detail-tool");
  });

  it("shows an llm span's conversation as messages, with usage and model", async () => {
    const opened = await browser.open(demoPage);
    const { page } = opened;
    await page.locator('[data-span-id][data-kind="llm"]').first().click();
    const detail = page.locator('[data-testid="span-detail"]');
    const roles = await detail.locator(".message").evaluateAll((els) => els.map((e) => e.getAttribute("data-role")));
    expect(roles).toEqual(["system", "user", "assistant"]);
    expect(await detail.textContent()).toMatch(/demo-model[\s\S]*182 prompt \+ 41 completion = 223/);
    await settled(opened, "demo-detail-llm");
  });

  it("shows the ATIF trajectory as a conversation, one element per step", async () => {
    const opened = await browser.open(demoPage);
    const { page } = opened;
    await page.click('[data-tab="trajectories"]');
    const steps = page.locator("[data-step-id]");
    expect(await steps.count()).toBe(trajectory.steps.length);
    const agent = page.locator('[data-step-id="2"]');
    expect(await agent.textContent()).toMatch(/get_weather[\s\S]*observation/);
    expect(await agent.textContent()).toContain("182 prompt");
    await settled(opened, "demo-trajectory");
  });

  it("filters by search, status and kind, and moves the selection with the keyboard", async () => {
    const opened = await browser.open(demoPage);
    const { page } = opened;
    await page.keyboard.press("/");
    await page.keyboard.type("notify");
    await page.waitForFunction(() => document.querySelectorAll("[data-span-id]").length === 3);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelectorAll("[data-span-id]").length === 6);
    await page.selectOption('[data-testid="kind-filter"]', "llm");
    expect(await page.locator("[data-span-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).toEqual([
      "agent",
      "llm",
      "llm",
    ]);
    await page.selectOption('[data-testid="kind-filter"]', "");
    await page.locator("[data-span-id]").first().click();
    await page.keyboard.press("ArrowDown");
    expect(await page.locator('[data-testid="span-detail"] h2').textContent()).toContain("openai.chat_completions");
    await page.keyboard.press("ArrowLeft"); // to the parent
    await page.keyboard.press("ArrowLeft"); // fold it
    expect(await page.locator("[data-span-id]").count()).toBe(1);
    await settled(opened, "demo-keyboard");
  });

  it("runs nothing from a hostile file: names and data are text", async () => {
    const name = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
    const lines = [
      {
        kind: "scope",
        scope_category: "start",
        atof_version: "0.1",
        uuid: "h-1",
        parent_uuid: null,
        timestamp: "2026-01-01T00:00:00.000001Z",
        name,
        attributes: [],
        category: "tool",
        category_profile: { tool_call_id: '"><svg onload=alert(1)>' },
        data: { html: "</script><script>window.pwned=3</script>" },
        data_schema: null,
        metadata: null,
      },
      {
        kind: "scope",
        scope_category: "end",
        atof_version: "0.1",
        uuid: "h-1",
        parent_uuid: null,
        timestamp: "2026-01-01T00:00:00.000201Z",
        name,
        attributes: [],
        category: "tool",
        category_profile: null,
        data: "<b>bold?</b>",
        data_schema: null,
        metadata: { "otel.status_code": "ERROR", "otel.status_description": "<i>boom</i>" },
      },
    ];
    const file = join(work, "hostile.jsonl");
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const opened = await browser.open(await view([file], "hostile.html"));
    const { page } = opened;
    await page.locator("[data-span-id]").first().click();
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator("[data-span-id] .span-name").textContent()).toBe(name);
    expect(await page.locator("[data-span-id]").getAttribute("data-status")).toBe("ERROR");
    expect(await page.locator('[data-testid="span-error"]').textContent()).toContain("<i>boom</i>");
    expect(await page.locator("img, svg, i, b").count()).toBe(0);
    await settled(opened, "hostile");
  });

  it("shows bidi controls and other hiding characters escaped, so a name cannot disguise itself", async () => {
    // U+202E reverses what follows: shown raw, this name reads "invoice_exe.pdf".
    const name = "invoice_\u202Efdp.exe";
    const scope = (cat: "start" | "end", us: string, data: unknown) => ({
      kind: "scope",
      scope_category: cat,
      atof_version: "0.1",
      uuid: "bidi-1",
      parent_uuid: null,
      timestamp: `2026-01-01T00:00:00.${us}Z`,
      name,
      attributes: [],
      category: "tool",
      category_profile: { tool_call_id: "call\u2066x\u2069" },
      data,
      data_schema: null,
      metadata: { "otel.status_code": "OK" },
    });
    const file = join(work, "bidi.jsonl");
    const lines = [scope("start", "000001", { path: "a\u200Fb" }), scope("end", "000201", "done\u202Dx")];
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const opened = await browser.open(await view([file], "bidi.html"));
    const { page } = opened;
    expect(await page.locator("[data-span-id] .span-name").textContent()).toBe("invoice_\\u202efdp.exe");
    await page.locator("[data-span-id]").first().click();
    const detail = (await page.locator('[data-testid="span-detail"]').textContent())!;
    expect(detail).toContain("call\\u2066x\\u2069");
    expect(detail).toContain("a\\u200fb");
    expect(detail).toContain("done\\u202dx");
    const shown = await page.evaluate(() => document.body.innerText);
    expect(shown).not.toMatch(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    await settled(opened, "bidi");
  });

  it("draws only the rows in view for a large file, and reaches the last one by scrolling", async () => {
    const lines: string[] = [];
    const at = (us: number) => `2026-01-01T00:00:${String(Math.floor(us / 1e6)).padStart(2, "0")}.${String(us % 1e6).padStart(6, "0")}Z`;
    const ev = (cat: "start" | "end", uuid: string, parent: string | null, name: string, us: number) =>
      JSON.stringify({
        kind: "scope",
        scope_category: cat,
        atof_version: "0.1",
        uuid,
        parent_uuid: parent,
        timestamp: at(us),
        name,
        attributes: [],
        category: "tool",
        category_profile: null,
        data: null,
        data_schema: null,
        metadata: { "otel.status_code": "OK" },
      });
    lines.push(ev("start", "big-root", null, "root", 0));
    for (let i = 0; i < 5000; i++)
      lines.push(
        ev("start", `big-${i}`, "big-root", `call-${i}`, 10 + i * 10),
        ev("end", `big-${i}`, "big-root", `call-${i}`, 15 + i * 10),
      );
    lines.push(ev("end", "big-root", null, "root", 60_000));
    const file = join(work, "big.jsonl");
    await writeFile(file, lines.join("\n") + "\n");
    const opened = await browser.open(await view([file], "big.html"));
    const { page } = opened;
    expect(await page.locator("[data-span-id]").count()).toBeLessThan(100);
    await page.locator(".scroller").evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForSelector('[data-span-id] >> text="call-4999"');
    await settled(opened, "large");
  });
});
