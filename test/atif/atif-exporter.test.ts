import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifExporter, validateAtif, type AtifTrajectory } from "../../exporters/atif/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { JsonObject } from "../../src/events/json.js";
import { AGENT, ROOT, scope, weatherRun } from "../support/atif-events.js";

const agent = {
  name: "weather",
  version: "1.0.0",
  toolDefinitions: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
};
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atif-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readTrajectory(path: string): Promise<AtifTrajectory> {
  return JSON.parse(await readFile(path, "utf8")) as AtifTrajectory;
}

describe("AtifExporter (hand-fed events)", () => {
  it("writes one validated file per top-level agent scope when it ends, and nothing else in the directory", async () => {
    const exporter = new AtifExporter({ agent, outputDirectory: join(dir, "out") });
    const events = weatherRun();
    for (const e of events.slice(0, -1)) exporter.onEvent(e);
    await exporter.forceFlush();
    expect(exporter.files()).toEqual([]); // the agent scope has not ended yet
    exporter.onEvent(events[events.length - 1]!);
    await exporter.forceFlush();
    const expected = join(dir, "out", `relaytrace-atif-${AGENT}.json`);
    expect(exporter.files()).toEqual([expected]);
    expect(await readdir(join(dir, "out"))).toEqual([`relaytrace-atif-${AGENT}.json`]);
    const doc = await readTrajectory(expected);
    expect(validateAtif(doc)).toEqual({ valid: true, errors: [] });
    expect(doc.agent.tool_definitions).toEqual(agent.toolDefinitions);
    expect(doc).toEqual(exporter.toJSON()[0]);
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("makes its output directory again when it is removed between two trajectories", async () => {
    const out = join(dir, "out", "nested");
    const exporter = new AtifExporter({ agent, outputDirectory: out });
    const first = weatherRun();
    for (const e of first) exporter.onEvent(e);
    await exporter.forceFlush();
    await rm(join(dir, "out"), { recursive: true });
    const second = weatherRun().map((e) => JSON.parse(JSON.stringify(e).replaceAll(AGENT, "AGENT-2")) as AtofEvent);
    for (const e of second) exporter.onEvent(e);
    await exporter.forceFlush();
    expect(await readdir(out)).toEqual(["relaytrace-atif-AGENT-2.json"]);
    expect(validateAtif(await readTrajectory(join(out, "relaytrace-atif-AGENT-2.json")))).toEqual({ valid: true, errors: [] });
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("ignores plain scopes and lone marks, and maps a resumed run to its own file that refers back", async () => {
    const exporter = new AtifExporter({ agent, outputDirectory: dir });
    exporter.onEvent(scope("start", { uuid: "F", parent: ROOT, ts: "2026-01-01T00:00:00Z", name: "housekeeping", category: "function" }));
    exporter.onEvent(scope("end", { uuid: "F", parent: ROOT, ts: "2026-01-01T00:00:01Z", name: "housekeeping", category: "function" }));
    for (const e of weatherRun()) exporter.onEvent(e);
    const resumed: AtofEvent[] = [
      scope("start", {
        uuid: "R",
        parent: AGENT,
        ts: "2026-03-01T13:00:00Z",
        name: "weather-agent",
        category: "agent",
        metadata: { "relaytrace.resume_of": "req-7" },
      }),
      scope("start", {
        uuid: "RL",
        parent: "R",
        ts: "2026-03-01T13:00:01Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { headers: {}, content: { messages: [{ role: "tool", tool_call_id: "call_9f2", content: "ok" }] } },
      }),
      scope("end", {
        uuid: "RL",
        parent: "R",
        ts: "2026-03-01T13:00:02Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { choices: [{ message: { content: "It is 4 degrees." } }] },
      }),
      scope("end", { uuid: "R", parent: AGENT, ts: "2026-03-01T13:00:03Z", name: "weather-agent", category: "agent" }),
    ];
    for (const e of resumed) exporter.onEvent(e);
    await exporter.shutdown();
    expect(exporter.files().map((f) => f.slice(dir.length + 1))).toEqual([`relaytrace-atif-${AGENT}.json`, "relaytrace-atif-R.json"]);
    const second = await readTrajectory(join(dir, "relaytrace-atif-R.json"));
    expect(second.extra).toEqual({ resume_of: { request_id: "req-7", trajectory_id: AGENT } });
    expect(second.session_id).toBe("R");
  });

  it("counts a write failure in diagnostics instead of throwing, and keeps the trajectory in toJSON()", async () => {
    const blocker = join(dir, "not-a-dir");
    await writeFile(blocker, "x");
    const exporter = new AtifExporter({ agent, outputDirectory: blocker });
    for (const e of weatherRun()) expect(() => exporter.onEvent(e)).not.toThrow();
    await exporter.forceFlush();
    expect(exporter.files()).toEqual([]);
    expect(exporter.toJSON()).toHaveLength(1);
    expect(exporter.diagnostics()).toEqual([expect.objectContaining({ code: "atif.write_failed", count: 1 })]);
  });

  it("counts an invalid trajectory in diagnostics and writes nothing", async () => {
    // agent.version is checked at construction now; a tool definition that is not an object is
    // left to the schema, so it still yields a trajectory that fails validation.
    const exporter = new AtifExporter({
      agent: { name: "weather", version: "1", toolDefinitions: ["get_weather" as unknown as JsonObject] },
      outputDirectory: dir,
    });
    for (const e of weatherRun()) exporter.onEvent(e);
    await exporter.shutdown();
    expect(await readdir(dir)).toEqual([]);
    expect(exporter.toJSON()).toEqual([]);
    expect(exporter.diagnostics()).toEqual([
      expect.objectContaining({ code: "atif.validation_failed", count: 1, message: expect.stringContaining("/agent/tool_definitions/0") }),
    ]);
  });

  it("maps a run still open at shutdown (crash), and shutdown is idempotent", async () => {
    const exporter = new AtifExporter({ agent });
    for (const e of weatherRun().slice(0, 3)) exporter.onEvent(e); // agent + LLM, no agent end
    await exporter.shutdown();
    await exporter.shutdown();
    exporter.onEvent(weatherRun()[0]!);
    const [t] = exporter.toJSON();
    expect(t!.steps.map((s) => s.source)).toEqual(["user", "agent"]);
    expect(exporter.toJSON()).toHaveLength(1);
  });
});

describe("AtifExporter on the real runtime", () => {
  it("writes the trajectory of withScope(agent) + executeLlm + executeTool", async () => {
    const runtime = createRuntime();
    const exporter = new AtifExporter({ agent: { name: "calc", version: "0.1.0" }, outputDirectory: dir });
    const remove = exporter.register(runtime);
    const llm = (messages: unknown[], message: Record<string, unknown>) =>
      runtime.executeLlm(
        "openai.chat_completions",
        { headers: { authorization: "Bearer sk-secret" }, content: { model: "gpt-4.1", messages } as never },
        async () =>
          ({
            model: "gpt-4.1",
            choices: [{ index: 0, message: { role: "assistant", ...message } }],
            usage: { prompt_tokens: 50, completion_tokens: 5 },
          }) as never,
        { modelName: "gpt-4.1" },
      );
    await runtime.withScope(
      "calc-agent",
      async () => {
        const user = { role: "user", content: "3+4?" };
        const call = { id: "call_abc", type: "function", function: { name: "add", arguments: '{"a":3,"b":4}' } };
        await llm([user], { content: null, tool_calls: [call] });
        await runtime.executeTool(
          "add",
          { a: 3, b: 4 },
          async (_args, ctx) => {
            runtime.mark("add.progress", { parent: { uuid: ctx.toolUuid }, data: { step: 1 } });
            return { result: { output: "7", isError: false } };
          },
          { toolCallId: "call_abc" },
        );
        await llm(
          [user, { role: "assistant", content: "", tool_calls: [call] }, { role: "tool", tool_call_id: "call_abc", content: "7" }],
          { content: "7" },
        );
      },
      { category: "agent", input: { prompt: "3+4?" }, metadata: { session_id: "s-int" } },
    );
    await runtime.flush();
    await exporter.forceFlush();
    expect(exporter.files()).toHaveLength(1);
    const doc = await readTrajectory(exporter.files()[0]!);
    expect(validateAtif(doc)).toEqual({ valid: true, errors: [] });
    expect(doc.session_id).toBe("s-int");
    expect(doc.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([
      [1, "user", "3+4?"],
      [2, "agent", ""],
      [3, "agent", "7"],
    ]);
    expect(doc.steps[1]!.tool_calls!.map((c) => [c.tool_call_id, c.arguments])).toEqual([["call_abc", { a: 3, b: 4 }]]);
    expect(doc.steps[1]!.observation!.results.map((r) => [r.source_call_id, r.content])).toEqual([["call_abc", "7"]]);
    expect((doc.steps[1]!.extra!["marks"] as { name: string }[]).map((m) => m.name)).toEqual(["add.progress"]);
    expect(doc.final_metrics).toMatchObject({ total_prompt_tokens: 100, total_completion_tokens: 10, total_steps: 3 });
    expect(JSON.stringify(doc)).not.toContain("sk-secret");
    expect(remove()).toBe(true);
    await runtime.shutdown();
  });
});

describe("AtifExporter.files() is bounded", () => {
  it("keeps the paths of the latest maxRetained files, oldest dropped first", async () => {
    const exporter = new AtifExporter({ agent, outputDirectory: dir, maxRetained: 5 });
    const runtime = createRuntime();
    exporter.register(runtime);
    for (let run = 0; run < 12; run++) {
      await runtime.withScope(`run-${run}`, () => ({ answer: run }), { category: "agent", input: { prompt: `q${run}` } });
    }
    await runtime.shutdown();
    expect((await readdir(dir)).filter((f) => f.endsWith(".json"))).toHaveLength(12); // every file is written
    const kept = exporter.files();
    expect(kept).toHaveLength(5);
    const prompts = await Promise.all(kept.map(async (f) => (await readTrajectory(f)).steps[0]!.message));
    expect(prompts).toEqual(["q7", "q8", "q9", "q10", "q11"]);
  });
});

describe("AtifExporter.toJSON() is bounded by bytes", () => {
  // A long conversation's trajectory carries its whole context: 1,000 of them could be hundreds of
  // megabytes. The kept trajectories are bounded by their estimated size as well as by count.
  const bigRun = (runtime: ReturnType<typeof createRuntime>, run: number) =>
    runtime.withScope(`run-${run}`, () => ({ answer: run }), { category: "agent", input: { prompt: `q${run} ${"x".repeat(10_000)}` } });

  it("keeps only the newest trajectories that fit maxRetainedBytes, oldest dropped first", async () => {
    const exporter = new AtifExporter({ agent, outputDirectory: dir, maxRetainedBytes: 35_000 });
    const runtime = createRuntime();
    exporter.register(runtime);
    for (let run = 0; run < 10; run++) await bigRun(runtime, run);
    await runtime.shutdown();
    expect((await readdir(dir)).filter((f) => f.endsWith(".json"))).toHaveLength(10); // every file is still written
    const kept = exporter.toJSON();
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(4); // each holds ~10 KB of prompt
    expect(kept.map((t) => String(t.steps[0]!.message).split(" ")[0]).at(-1)).toBe("q9");
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(35_000);
  });

  it("always keeps the newest trajectory, even one larger than the bound", async () => {
    const exporter = new AtifExporter({ agent, maxRetainedBytes: 1 });
    const runtime = createRuntime();
    exporter.register(runtime);
    for (let run = 0; run < 3; run++) await bigRun(runtime, run);
    await runtime.shutdown();
    expect(exporter.toJSON().map((t) => String(t.steps[0]!.message).slice(0, 3))).toEqual(["q2 "]);
  });

  it("maxRetained: 0 still keeps none", async () => {
    const exporter = new AtifExporter({ agent, maxRetained: 0 });
    const runtime = createRuntime();
    exporter.register(runtime);
    await bigRun(runtime, 0);
    await runtime.shutdown();
    expect(exporter.toJSON()).toEqual([]);
  });

  it("refuses a maxRetainedBytes that is not a non-negative number", () => {
    expect(() => new AtifExporter({ agent, maxRetainedBytes: -1 })).toThrow(/maxRetainedBytes/);
  });
});
