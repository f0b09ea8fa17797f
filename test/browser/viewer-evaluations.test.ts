// `relaytrace view` shows evaluation scores on the steps they score: a badge on the span's
// waterfall row, name, score, label and explanation in its detail, and on the ATIF step in the
// trajectories pane. A span evaluated by its W3C ids gets it too. Everything is text: an
// explanation full of markup stays text. Recorded by the real runtime, viewed in chromium.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import { spanIdFromUuid, traceIdFromUuid } from "../../exporters/otel/ids.js";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { capturingRuntime } from "../support/capture.js";
import { launchChromium, type BrowserSession } from "../support/browser.js";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/browser/", import.meta.url));
const quiet: Io = { out: () => undefined, err: () => undefined, progress: () => undefined };
const hostile = '<img src=x onerror="window.pwned=1">cites the wrong order';

let browser: BrowserSession;
let page: string;
let llmSpanId: string;
let toolSpanId: string;
let agentSpanId: string;
let evaluatedStep: number;

async function recordRun(): Promise<AtofEvent[]> {
  const { rt, settle } = capturingRuntime();
  let llm: { uuid: string } | undefined;
  let agentUuid = "";
  await rt.withScope(
    "support-agent",
    async (scope) => {
      agentUuid = scope.uuid;
      await rt.executeLlm(
        "openai.chat_completions",
        { content: { model: "gpt-test", messages: [{ role: "user", content: "Where is order 5?" }] } },
        async (_request, ctx) => {
          llm = { uuid: ctx.llmUuid };
          return {
            choices: [{ message: { role: "assistant", content: "It shipped." } }],
            usage: { prompt_tokens: 3, completion_tokens: 2 },
          };
        },
        { modelName: "gpt-test" },
      );
      await rt.executeTool("lookup_order", { id: 5 }, () => ({ result: "shipped" }));
    },
    { category: "agent" },
  );
  // After the spans ended: a judge scores the LLM call, a user's thumbs-down names the agent by its ids.
  rt.recordEvaluation({ name: "relevance", score: 0.25, label: "off-topic", explanation: hostile, target: llm! });
  rt.recordEvaluation({
    name: "user_feedback",
    label: "thumbs_down",
    target: { traceId: traceIdFromUuid(agentUuid), spanId: spanIdFromUuid(agentUuid) },
  });
  const events = [...(await settle())];
  await rt.shutdown();
  return events;
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "relaytrace-browser-eval-"));
  const events = await recordRun();
  const atof = join(work, "run.jsonl");
  await writeFile(atof, events.map((e) => serializeEvent(e)).join("\n") + "\n");
  const [trajectory] = atofToAtif(events);
  evaluatedStep = trajectory!.steps.find((s) => Array.isArray(s.extra?.["evaluations"]))!.step_id;
  const atif = join(work, "run.atif.json");
  await writeFile(atif, JSON.stringify(trajectory));
  const starts = events.filter((e) => e.kind === "scope" && e.scope_category === "start");
  llmSpanId = spanIdFromUuid(starts.find((e) => e.category === "llm")!.uuid);
  toolSpanId = spanIdFromUuid(starts.find((e) => e.category === "tool")!.uuid);
  agentSpanId = spanIdFromUuid(starts.find((e) => e.category === "agent")!.uuid);
  const out = join(work, "view.html");
  expect(await main(["view", atof, atif, "-o", out], quiet)).toBe(0);
  page = pathToFileURL(out).href;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe("evaluations in the viewer", () => {
  it("badge the evaluated rows only, and show name, score, label and explanation (as text) in the detail", async () => {
    const opened = await browser.open(page);
    const { page: p } = opened;
    const row = (id: string) => p.locator(`[data-span-id="${id}"]`);
    expect(await row(llmSpanId).locator('[data-evaluation="relevance"]').textContent()).toBe("relevance 0.25 · off-topic");
    expect(await row(agentSpanId).locator('[data-evaluation="user_feedback"]').textContent()).toBe("user_feedback thumbs_down");
    expect(await row(toolSpanId).locator("[data-evaluation]").count()).toBe(0);
    expect(await row(llmSpanId).locator('[data-evaluation="user_feedback"]').count()).toBe(0);

    await row(llmSpanId).click();
    const detail = p.locator('[data-testid="span-detail"]');
    const item = detail.locator('ul.evaluations [data-evaluation="relevance"]');
    expect(await item.locator("strong").textContent()).toBe("relevance");
    expect(await item.locator(".verdict").textContent()).toBe(" 0.25 · off-topic");
    expect(await item.locator(".explanation").textContent()).toBe(hostile);
    expect(await detail.locator("h3", { hasText: "Evaluations (1)" }).count()).toBe(1);
    expect(await p.locator("img").count()).toBe(0);
    expect(await p.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

    await row(toolSpanId).click();
    expect(await detail.locator("ul.evaluations").count()).toBe(0);
    await opened.page.screenshot({ path: join(ARTIFACTS, "evaluations-detail.png") });
    expect(opened.requests).toEqual([]);
    expect(opened.errors).toEqual([]);
  });

  it("show the score on the ATIF step it belongs to", async () => {
    const opened = await browser.open(page);
    const { page: p } = opened;
    await p.click('[data-tab="trajectories"]');
    const step = p.locator(`[data-step-id="${evaluatedStep}"]`);
    expect(await step.locator('[data-evaluation="relevance"] .verdict').textContent()).toBe(" 0.25 · off-topic");
    expect(await p.locator("[data-step-id] [data-evaluation]").count()).toBe(1);
    expect(opened.errors).toEqual([]);
  });
});
