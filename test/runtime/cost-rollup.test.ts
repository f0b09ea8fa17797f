import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifExporter, validateAtif, type AtifTrajectory } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { startProvider, type ReceivedRequest } from "../support/agent-provider-server.js";
import { anthropicMessage, chatCompletion } from "../support/dialect-replies.js";

// Cost rolls up: an agent scope's end, and the end of a trace's outermost scope, carry the total
// of the model calls inside them, and that total reaches every exporter.

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-cost-"));
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  await rm(dir, { recursive: true, force: true });
});

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }: { a: number; b: number }) => String(a + b),
});

// gpt-4o-mini at $0.15 input, $0.075 cached, $0.60 output per million tokens:
// turn 1: 1,000 prompt (400 cached) + 50 out = 600 × 0.15 + 400 × 0.075 + 50 × 0.60 = $0.00015
// turn 2: 2,000 prompt (1,600 cached) + 100 out = 400 × 0.15 + 1,600 × 0.075 + 100 × 0.60 = $0.00024
const TURN_1 = chatCompletion(
  "gpt-4o-mini-2024-07-18",
  { prompt: 1000, completion: 50, cached: 400 },
  { id: "call_1", name: "add", arguments: '{"a":3,"b":4}' },
);
const TURN_2 = chatCompletion("gpt-4o-mini-2024-07-18", { prompt: 2000, completion: 100, cached: 1600 });
const RUN_TOTAL = 0.00039;

function readAtof(path: string): Promise<AtofEvent[]> {
  return readFile(path, "utf8").then((text) =>
    text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => parseAtofLine(line)),
  );
}

function ends(events: AtofEvent[], category: string): ScopeEvent[] {
  return events.filter((e): e is ScopeEvent => e.kind === "scope" && e.scope_category === "end" && e.category === category);
}

function span(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no span ${name} among ${spans.map((s) => s.name).join(", ")}`);
  return found;
}

/** A runtime with every exporter: an ATOF file, ATIF files, and the three span projections. */
function exported(runtime: Runtime) {
  const atofPath = join(dir, "events.jsonl");
  new AtofExporter({ type: "file", path: atofPath }).register(runtime);
  const atif = new AtifExporter({ agent: { name: "calc", version: "1" }, outputDirectory: join(dir, "atif") });
  atif.register(runtime);
  const projections = {
    full: new SpanCapture({ projection: "full" }),
    openinference: new SpanCapture({ projection: "openinference" }),
    gen_ai: new SpanCapture({ projection: "gen_ai" }),
  };
  for (const capture of Object.values(projections)) capture.register(runtime);
  return { atofPath, atif, projections };
}

async function trajectories(atif: AtifExporter): Promise<AtifTrajectory[]> {
  await atif.forceFlush();
  return Promise.all(atif.files().map(async (path) => JSON.parse(await readFile(path, "utf8")) as AtifTrajectory));
}

describe("an agent run's end carries the total of its model calls", () => {
  it("on the agent scope's end in the ATOF file, in ATIF final_metrics, and in every span projection", async () => {
    const server = await startProvider([TURN_1, TURN_2]);
    closers.push(server.close);
    const runtime = createRuntime();
    const { atofPath, atif, projections } = exported(runtime);
    const client = createClient({ baseUrl: server.url, style: "openai", model: "gpt-4o-mini", apiKey: "k", runtime, agentName: "calc" });
    const result = await client.run("What is 3 + 4?", { toolkit: await createToolkit({ tools: [add] }) });
    expect(result.text).toBe("done");
    await runtime.shutdown();

    const events = await readAtof(atofPath);
    const calls = ends(events, "llm").map((e) => (e.category_profile as { cost: { total: number } }).cost.total);
    expect(calls).toEqual([0.00015, 0.00024]);
    const [agentEnd] = ends(events, "agent");
    expect(agentEnd!.category_profile).toEqual({
      total_cost: { total: RUN_TOTAL, currency: "USD", priced_calls: 2, unpriced_calls: 0 },
      total_usage: { input_tokens: 3000, output_tokens: 150, cache_read_tokens: 2000, reasoning_tokens: 0, calls: 2 },
    });

    const [trajectory] = await trajectories(atif);
    expect(validateAtif(trajectory)).toEqual({ valid: true, errors: [] });
    expect(trajectory!.final_metrics?.total_cost_usd).toBe(RUN_TOTAL);

    const full = await projections.full.spans();
    expect(
      full.filter((s) => s.attributes["nemo_relay.scope_type"] === "llm").map((s) => s.attributes["nemo_relay.llm.cost.total"]),
    ).toEqual([0.00015, 0.00024]);
    expect(span(full, "calc").attributes).toMatchObject({
      "nemo_relay.total_cost.total": RUN_TOTAL,
      "nemo_relay.total_cost.currency": "USD",
      "nemo_relay.total_cost.priced_calls": 2,
      "nemo_relay.total_cost.unpriced_calls": 0,
      "nemo_relay.total_usage.input_tokens": 3000,
      "nemo_relay.total_usage.output_tokens": 150,
      "nemo_relay.total_usage.cache_read_tokens": 2000,
    });

    const oi = await projections.openinference.spans();
    const oiLlm = oi.filter((s) => s.attributes["openinference.span.kind"] === "LLM");
    expect(
      oiLlm.map((s) => [s.attributes["llm.cost.total"], s.attributes["llm.cost.prompt"], s.attributes["llm.cost.completion"]]),
    ).toEqual([
      [0.00015, 0.00012, 0.00003],
      [0.00024, 0.00018, 0.00006],
    ]);
    expect(oiLlm.map((s) => s.attributes["llm.cost.prompt_details.cache_read"])).toEqual([0.00003, 0.00012]);
    expect(span(oi, "calc").attributes["llm.cost.total"]).toBe(RUN_TOTAL);

    const genAi = await projections.gen_ai.spans();
    expect(span(genAi, "invoke_agent calc").attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 3000,
      "gen_ai.usage.output_tokens": 150,
      "gen_ai.usage.cache_read.input_tokens": 2000,
    });
  });

  it("the outermost scope of a trace totals every agent under it; OpenInference puts the total on that root span only", async () => {
    // One request handler runs two agents: gpt-4o-mini ($0.00039, above) and claude-sonnet-4-5
    // (1,000 in, 100 out at $3 / $15 = $0.0045), then makes a call of an unknown model.
    const openai = await startProvider([TURN_1, TURN_2]);
    const anthropic = await startProvider([anthropicMessage("claude-sonnet-4-5-20250929", { input: 1000, output: 100 })]);
    const other = await startProvider([chatCompletion("acme-llm-1", { prompt: 10, completion: 5 })]);
    closers.push(openai.close, anthropic.close, other.close);
    const runtime = createRuntime();
    const { atofPath, atif, projections } = exported(runtime);
    const toolkit = await createToolkit({ tools: [add] });
    await runtime.withScope("handle-request", async () => {
      await createClient({ baseUrl: openai.url, style: "openai", model: "gpt-4o-mini", apiKey: "k", runtime, agentName: "calc" }).run(
        "3 + 4?",
        { toolkit },
      );
      await createClient({
        baseUrl: anthropic.url,
        style: "anthropic",
        model: "claude-sonnet-4-5",
        apiKey: "k",
        runtime,
        agentName: "writer",
      }).run("Hi", {
        toolkit,
      });
      await createClient({ baseUrl: other.url, style: "openai", model: "acme-llm-1", apiKey: "k", runtime, agentName: "other" }).run("Hi", {
        toolkit,
      });
    });
    await runtime.shutdown();

    const events = await readAtof(atofPath);
    const totals = (e: ScopeEvent) => (e.category_profile as { total_cost?: { total: number; unpriced_calls: number } } | null)?.total_cost;
    const byName = Object.fromEntries(ends(events, "agent").map((e) => [e.name, totals(e)]));
    expect(byName).toEqual({
      calc: { total: 0.00039, currency: "USD", priced_calls: 2, unpriced_calls: 0 },
      writer: { total: 0.0045, currency: "USD", priced_calls: 1, unpriced_calls: 0 },
      // no priced call: no total rather than a total of 0
      other: undefined,
    });
    const root = events.find((e): e is ScopeEvent => e.kind === "scope" && e.scope_category === "end" && e.name === "handle-request")!;
    // The unknown model's call is counted, so the total says it is a lower bound.
    expect(totals(root)).toEqual({ total: 0.00489, currency: "USD", priced_calls: 3, unpriced_calls: 1 });

    const oi = await projections.openinference.spans();
    expect(span(oi, "handle-request").attributes["llm.cost.total"]).toBe(0.00489);
    for (const agent of ["calc", "writer", "other"]) expect(span(oi, agent).attributes["llm.cost.total"]).toBeUndefined();
    expect(span(await projections.full.spans(), "handle-request").attributes["nemo_relay.total_cost.unpriced_calls"]).toBe(1);
    // One trajectory per agent, each with its own calls' total.
    const costs = (await trajectories(atif)).map((t) => t.final_metrics?.total_cost_usd).sort();
    expect(costs).toEqual([0.00039, 0.0045, undefined]);
  });

  it("100 concurrent agent runs on one runtime each total only their own calls", async () => {
    // Each run's first reply costs what its index says: prompt tokens = 1,000 × (i + 1) at $0.15.
    const server = await startProvider((request: ReceivedRequest) => {
      const run = Number(/run (\d+)/.exec(JSON.stringify(request.body))![1]);
      const answered = JSON.stringify(request.body).includes('"role":"tool"');
      return answered
        ? chatCompletion("gpt-4o-mini", { prompt: 0, completion: 0 })
        : chatCompletion(
            "gpt-4o-mini",
            { prompt: 1000 * (run + 1), completion: 0 },
            { id: `call_${run}`, name: "add", arguments: '{"a":1,"b":2}' },
          );
    });
    closers.push(server.close);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const toolkit = await createToolkit({ tools: [add] });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        createClient({ baseUrl: server.url, style: "openai", model: "gpt-4o-mini", apiKey: "k", runtime, agentName: `run-${i}` }).run(
          `run ${i}`,
          {
            toolkit,
          },
        ),
      ),
    );
    await runtime.flush();
    for (const end of ends(events, "agent")) {
      const i = Number(end.name.slice(4));
      expect(end.category_profile).toMatchObject({ total_cost: { total: (1000 * (i + 1) * 0.15) / 1e6, priced_calls: 2 } });
    }
    expect(ends(events, "agent")).toHaveLength(100);
    await runtime.shutdown();
  });
});
