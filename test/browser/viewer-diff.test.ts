import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";
import { launchChromium, type BrowserSession } from "../support/browser.js";
import { recordRun } from "../support/recorded-run.js";

/** Screenshots are kept for people to look at (the folder is ignored by git). */
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/browser/", import.meta.url));

let browser: BrowserSession;
let work: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  work = await mkdtemp(join(tmpdir(), "relaytrace-browser-diff-"));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function file(name: string, events: readonly AtofEvent[]): Promise<string> {
  const path = join(work, name);
  await writeFile(path, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return path;
}

describe("view A --diff B in chromium", () => {
  it("shows both runs side by side in one self-contained file, the changed step marked with its change", async () => {
    const oslo = { id: "call_1", name: "get_weather", arguments: { city: "Oslo" } };
    const bergen = { id: "call_2", name: "get_weather", arguments: { city: "Bergen" } };
    const usage = { promptTokens: 50, completionTokens: 9 };
    const a = await recordRun("openai", "Weather?", [{ toolCalls: [oslo], usage }, { text: "Oslo: 4 °C." }]);
    const b = await recordRun("openai", "Weather?", [{ toolCalls: [oslo, bergen], usage }, { text: "Oslo: 4 °C." }]);
    const out = join(work, "diff.html");
    const io = capturedIo();
    expect(await main(["view", await file("a.jsonl", a.events), "--diff", await file("b.jsonl", b.events), "-o", out], io)).toBe(0);
    expect(io.stderr.join("\n")).toMatch(/1 change\b/);
    expect(await readFile(out, "utf8")).not.toMatch(/<script src|<link /);

    const opened = await browser.open(pathToFileURL(out).href);
    const { page } = opened;
    expect(await page.locator('[data-testid="diff-summary"]').textContent()).toBe("1 change between the runs.");
    const changed = page.locator('[data-diff-step][data-changed="true"]');
    expect(await changed.evaluateAll((els) => els.map((e) => e.getAttribute("data-diff-step")))).toEqual(["1"]);
    expect(await changed.locator('[data-change="tool_call_added"]').textContent()).toContain("get_weather");
    expect(await changed.locator('[data-run="a"] [data-tool]').count()).toBe(1);
    expect(await changed.locator('[data-run="b"] [data-tool]').count()).toBe(2);
    expect(await page.locator('[data-diff-step="2"]').getAttribute("data-changed")).toBe("false");
    await page.screenshot({ path: join(ARTIFACTS, "diff.png") });

    await page.click('[data-tab="spans"]');
    const starts = [...a.events, ...b.events].filter((e) => e.kind === "scope" && e.scope_category === "start");
    expect(await page.locator("[data-span-id]").count()).toBe(starts.length);
    expect(await page.locator('[data-span-id][data-kind="llm"] .badge.changed').count()).toBe(2);
    expect(opened.requests).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
