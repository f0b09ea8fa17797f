import { Agent } from "@mastra/core/agent";
import { createScorer } from "@mastra/core/evals";
import { Mastra } from "@mastra/core/mastra";
import { SpanType } from "@mastra/core/observability";
import { createTool } from "@mastra/core/tools";
import { createStep, createWorkflow } from "@mastra/core/workflows";
import { Observability } from "@mastra/observability";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AtofEvent, MarkEvent, Runtime } from "relaytrace";
import { RelaytraceExporter, type EvaluationData } from "relaytrace/mastra";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { attr, ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

// Mastra's usage analytics stay off: no traffic leaves the loopback server.
process.env["MASTRA_TELEMETRY_DISABLED"] = "1";

let provider: ScriptedProvider | undefined;
let mastra: Mastra | undefined;
afterEach(async () => {
  await mastra?.shutdown();
  mastra = undefined;
  await provider?.close();
  provider = undefined;
});

const getWeather = createTool({
  id: "get_weather",
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    if (city === "Atlantis") throw new Error("no such city");
    return { city, temp_c: 4 };
  },
});

function weatherAgent(url: string, scorers?: ConstructorParameters<typeof Agent>[0]["scorers"]) {
  return new Agent({
    id: "weather-agent",
    name: "weather-agent",
    instructions: "Be brief.",
    model: { id: "openai/gpt-4.1-mini", url, apiKey: "sk-test-key" },
    tools: { get_weather: getWeather },
    ...(scorers ? { scorers } : {}),
  });
}

/** A Mastra instance whose only observability exporter is relaytrace's. */
function mastraWith(
  exporter: RelaytraceExporter,
  parts: Omit<ConstructorParameters<typeof Mastra>[0] & object, "observability">,
  excludeSpanTypes: SpanType[] = [],
) {
  mastra = new Mastra({
    ...parts,
    logger: false,
    observability: new Observability({
      configs: { relaytrace: { serviceName: "relaytrace-test", exporters: [exporter], excludeSpanTypes } },
    }),
  });
  return mastra;
}

function ancestryOf(events: AtofEvent[]) {
  const byUuid = new Map(scopesOf(events).map((e) => [e.uuid, e]));
  return (uuid: string | null) => {
    const names: string[] = [];
    for (let at = uuid ? byUuid.get(uuid) : undefined; at; at = at.parent_uuid ? byUuid.get(at.parent_uuid) : undefined)
      names.push(at.name);
    return names;
  };
}

/** Resolves with the first evaluation mark the runtime delivers (the score is emitted after the run, by Mastra's hook). */
function nextEvaluation(runtime: Runtime): Promise<MarkEvent> {
  return new Promise((resolve) => {
    const remove = runtime.subscribe("await-evaluation", (e) => {
      if (e.kind === "mark" && e.name === "gen_ai.evaluation.result") {
        remove();
        resolve(e);
      }
    });
  });
}

describe("relaytrace/mastra with the real Mastra agent, workflows and observability against a scripted OpenAI-compatible server", () => {
  it("an agent run becomes an agent scope with its model calls as llm scopes and its tool calls as tool scopes, in order", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        {
          toolCalls: [
            { id: "call_o", name: "get_weather", arguments: { city: "Oslo" } },
            { id: "call_a", name: "get_weather", arguments: { city: "Atlantis" } },
          ],
          usage: { promptTokens: 40, completionTokens: 12, cachedTokens: 16 },
        },
        { text: "Oslo is at 4 °C; Atlantis is unknown.", usage: { promptTokens: 75, completionTokens: 10 } },
      ],
    });
    const run = integrationRun("openinference");
    run.runtime.registerMetadataInjector("tenant", 0, () => ({ tenant: "acme" }));
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const app = mastraWith(exporter, { agents: { weather: weatherAgent(provider.url) } });

    const result = await run.runtime.withScope("app-request", () => app.getAgent("weather").generate("Weather in Oslo and Atlantis?"));
    expect(result.text).toBe("Oslo is at 4 °C; Atlantis is unknown.");
    expect(provider.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    await exporter.flush();
    const { events, spans, trajectories } = await run.finish();
    expect(exporter.diagnostics()).toEqual([]);
    expect(exporter.openSpanCount()).toBe(0);

    // nesting, by the parent uuids: app scope > agent > generation > step > llm, tool
    const ancestry = ancestryOf(events);
    const [appScope] = starts(events, "function").filter((e) => e.name === "app-request");
    const agent = starts(events, "agent").find((e) => e.name === "weather-agent")!;
    expect(agent.parent_uuid).toBe(appScope!.uuid);
    expect(agent.data).toBe("Weather in Oslo and Atlantis?");
    expect(agent.metadata).toMatchObject({
      "mastra.span_type": "agent_run",
      "mastra.trace_id": result.traceId,
      session_id: result.traceId,
    });
    const llmStarts = starts(events, "llm");
    expect(llmStarts).toHaveLength(2);
    const generation = ["llm: 'gpt-4.1-mini'", "weather-agent", "app-request"];
    expect(ancestry(llmStarts[0]!.parent_uuid)).toEqual(["step: 0", ...generation]);
    expect(ancestry(llmStarts[1]!.parent_uuid)).toEqual(["step: 1", ...generation]);
    const toolStarts = starts(events, "tool");
    expect(toolStarts.map((e) => e.name)).toEqual(["get_weather", "get_weather"]);
    for (const t of toolStarts) expect(t.parent_uuid).toBe(llmStarts[0]!.parent_uuid);

    // order: each model call ends before the tools it asked for start (Mastra runs them concurrently),
    // and their results precede the next call
    const calls = scopesOf(events).filter((e) => e.category === "llm" || e.category === "tool");
    expect(calls.map((e) => `${e.scope_category} ${e.category}`)).toEqual([
      "start llm",
      "end llm",
      "start tool",
      "start tool",
      "end tool",
      "end tool",
      "start llm",
      "end llm",
    ]);
    const times = calls.map((e) => (typeof e.timestamp === "number" ? e.timestamp : Date.parse(e.timestamp)));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    // tool scopes: the model's call ids, the arguments (masked by the sanitizer), results, the failure
    expect(toolStarts.map((e) => e.data)).toEqual([{ city: "[city]" }, { city: "[city]" }]);
    const toolEnds = ends(events, "tool");
    expect(toolStarts.map((e) => e.category_profile?.["tool_call_id"])).toEqual(["call_o", "call_a"]);
    const oslo = toolEnds.find((e) => e.category_profile?.["tool_call_id"] === "call_o")!;
    const atlantis = toolEnds.find((e) => e.category_profile?.["tool_call_id"] === "call_a")!;
    expect(oslo.data).toEqual({ city: "Oslo", temp_c: 4 });
    expect(oslo.metadata).toMatchObject({ "otel.status_code": "OK" });
    expect(atlantis.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(String(atlantis.data)).toContain("no such city");

    // llm scopes: Chat Completions bodies; the second request carries the first reply and both results
    const first = llmStarts[0]!.data as {
      content: { model: string; messages: { role: string }[]; tools: { function: { name: string } }[] };
    };
    expect(first.content.model).toBe("gpt-4.1-mini");
    expect(first.content.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first.content.tools.map((t) => t.function.name)).toEqual(["get_weather"]);
    const second = llmStarts[1]!.data as {
      content: { messages: { role: string; tool_call_id?: string; content?: unknown; tool_calls?: { id: string }[] }[] };
    };
    expect(second.content.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(second.content.messages[2]!.tool_calls?.map((c) => c.id)).toEqual(["call_o", "call_a"]);
    expect(second.content.messages.slice(3).map((m) => m.tool_call_id)).toEqual(["call_o", "call_a"]);
    expect(second.content.messages[3]!.content).toBe('{"city":"Oslo","temp_c":4}');
    const llmEnds = ends(events, "llm");
    // priced from the bundled table, like every model call whose model and usage are known
    expect(llmEnds.map((e) => e.category_profile)).toEqual([
      { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
      { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
    ]);
    expect(llmEnds[0]!.data).toMatchObject({
      choices: [{ message: { tool_calls: [{ id: "call_o" }, { id: "call_a" }] }, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } },
    });
    expect(llmEnds[1]!.data).toMatchObject({ choices: [{ message: { content: "Oslo is at 4 °C; Atlantis is unknown." } }] });
    expect(JSON.stringify(events)).not.toContain("sk-test-key");
    expect(events.every((e) => (e.metadata as Record<string, unknown> | null)?.["tenant"] === "acme")).toBe(true);

    // the agent scope ends with the run's output
    const agentEnd = ends(events, "agent")[0]!;
    expect(agentEnd.data).toMatchObject({ text: "Oslo is at 4 °C; Atlantis is unknown." });
    expect(agentEnd.metadata).toMatchObject({ "otel.status_code": "OK" });

    // ATIF: the agent's trajectory with both calls, their observations and the usage
    expect(trajectories).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[1]!.tool_calls?.map((c) => c.tool_call_id)).toEqual(["call_o", "call_a"]);
    expect(steps[1]!.observation?.results.map((r) => r.source_call_id).sort()).toEqual(["call_a", "call_o"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, cached_tokens: 16 });
    expect(steps[2]!.message).toBe("Oslo is at 4 °C; Atlantis is unknown.");

    // openinference spans
    const kinds = spans.map((s) => [s.name, attr(s, "openinference.span.kind")]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["weather-agent", "AGENT"],
        ["get_weather", "TOOL"],
      ]),
    );
    const llmSpan = spans.find((s) => attr(s, "openinference.span.kind") === "LLM")!;
    expect(attr(llmSpan, "llm.model_name")).toBe("gpt-4.1-mini");
    expect(attr(llmSpan, "llm.token_count.prompt")).toBe(40);
  });

  it.each([
    { excluded: [SpanType.MODEL_STEP, SpanType.MODEL_CHUNK], parents: ["llm: 'gpt-4.1-mini'", "weather-agent"] },
    { excluded: [SpanType.MODEL_INFERENCE], parents: ["step: 0", "llm: 'gpt-4.1-mini'", "weather-agent"] },
  ])(
    "with $excluded left out by Mastra's excludeSpanTypes, the calls are still llm scopes before their tools",
    async ({ excluded, parents }) => {
      provider = await startScriptedProvider({
        model: "gpt-4.1-mini",
        turns: [
          {
            toolCalls: [{ id: "call_t", name: "get_weather", arguments: { city: "Tromsø" } }],
            usage: { promptTokens: 30, completionTokens: 7 },
          },
          { text: "Tromsø: 4 °C." },
        ],
      });
      const run = integrationRun();
      const exporter = new RelaytraceExporter({ runtime: run.runtime });
      const app = mastraWith(exporter, { agents: { weather: weatherAgent(provider.url) } }, excluded);
      const result = await app.getAgent("weather").generate("Weather in Tromsø?");
      expect(result.text).toBe("Tromsø: 4 °C.");
      await exporter.flush();
      const { events, trajectories } = await run.finish();
      expect(exporter.diagnostics()).toEqual([]);
      expect(exporter.openSpanCount()).toBe(0);
      const calls = scopesOf(events).filter((e) => e.category === "llm" || e.category === "tool");
      expect(calls.map((e) => `${e.scope_category} ${e.category}`)).toEqual([
        "start llm",
        "end llm",
        "start tool",
        "end tool",
        "start llm",
        "end llm",
      ]);
      const llmStarts = starts(events, "llm");
      expect(ancestryOf(events)(llmStarts[0]!.parent_uuid)).toEqual(parents);
      const second = llmStarts[1]!.data as { content: { messages: { role: string; tool_call_id?: string }[] } };
      expect(second.content.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
      expect(second.content.messages[3]!.tool_call_id).toBe("call_t");
      const llmEnds = ends(events, "llm");
      expect(llmEnds[0]!.category_profile).toEqual({
        model_name: "gpt-4.1-mini",
        cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }),
      });
      expect(llmEnds[0]!.data).toMatchObject({
        choices: [{ message: { tool_calls: [{ id: "call_t" }] } }],
        usage: { prompt_tokens: 30, completion_tokens: 7 },
      });
      expect(trajectories[0]!.steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
      expect(trajectories[0]!.steps[1]!.observation?.results.map((r) => r.source_call_id)).toEqual(["call_t"]);
    },
  );

  it("a tool call Mastra ends twice (observability before 1.17.4 does so for a failed one) is one tool result and one tool end", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [{ toolCalls: [{ id: "call_a", name: "get_weather", arguments: { city: "Atlantis" } }] }, { text: "Atlantis is unknown." }],
    });
    const run = integrationRun("openinference");
    /** Hands every tool call's end to relaytrace twice, as those Mastra releases did for a failed one. */
    class RepeatedEnds extends RelaytraceExporter {
      override async exportTracingEvent(event: Parameters<RelaytraceExporter["exportTracingEvent"]>[0]): Promise<void> {
        await super.exportTracingEvent(event);
        if (event.type === "span_ended" && event.exportedSpan.type === SpanType.TOOL_CALL) await super.exportTracingEvent(event);
      }
    }
    const exporter = new RepeatedEnds({ runtime: run.runtime });
    const app = mastraWith(exporter, { agents: { weather: weatherAgent(provider.url) } });

    const result = await app.getAgent("weather").generate("Weather in Atlantis?");
    expect(result.text).toBe("Atlantis is unknown.");
    await exporter.flush();
    const { events } = await run.finish();
    expect(ends(events, "tool")).toHaveLength(1);
    expect(ends(events, "tool")[0]).toMatchObject({ category_profile: { tool_call_id: "call_a" }, data: "no such city" });
    const second = starts(events, "llm")[1]!.data as { content: { messages: { role: string; tool_call_id?: string }[] } };
    expect(second.content.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second.content.messages[3]!.tool_call_id).toBe("call_a");
  });

  it("a streamed agent run (agent.stream) is recorded the same way once the stream is read", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [{ toolCalls: [{ id: "call_s", name: "get_weather", arguments: { city: "Bergen" } }] }, { text: "Bergen: 4 °C." }],
    });
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const app = mastraWith(exporter, { agents: { weather: weatherAgent(provider.url) } });
    const stream = await app.getAgent("weather").stream("Weather in Bergen?");
    let text = "";
    for await (const chunk of stream.textStream) text += chunk;
    expect(text).toBe("Bergen: 4 °C.");
    await exporter.flush();
    const { events, trajectories } = await run.finish();
    expect(exporter.openSpanCount()).toBe(0);
    expect(exporter.diagnostics()).toEqual([]);
    const calls = scopesOf(events).filter((e) => e.category === "llm" || e.category === "tool");
    expect(calls.map((e) => `${e.scope_category} ${e.category}`)).toEqual([
      "start llm",
      "end llm",
      "start tool",
      "end tool",
      "start llm",
      "end llm",
    ]);
    expect(ends(events, "tool")[0]!.data).toEqual({ city: "Bergen", temp_c: 4 });
    expect(ends(events, "llm")[1]!.data).toMatchObject({ choices: [{ message: { content: "Bergen: 4 °C." } }] });
    expect(trajectories[0]!.steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
  });

  it("an agent called from a tool nests under that tool's scope, after the call that asked for the tool", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        { toolCalls: [{ id: "call_x", name: "ask_expert", arguments: { question: "meaning of life?" } }] },
        { text: "42" },
        { text: "The expert says 42." },
      ],
    });
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const expert = new Agent({
      id: "expert",
      name: "expert",
      instructions: "Answer in one word.",
      model: { id: "openai/gpt-4.1-mini", url: provider.url, apiKey: "sk-test-key" },
    });
    const askExpert = createTool({
      id: "ask_expert",
      description: "Ask the expert",
      inputSchema: z.object({ question: z.string() }),
      execute: async ({ question }, context) => {
        const answer = await expert.generate(question, { ...(context.tracingContext ? { tracingContext: context.tracingContext } : {}) });
        return { answer: answer.text };
      },
    });
    const host = new Agent({
      id: "host",
      name: "host",
      instructions: "Ask the expert.",
      model: { id: "openai/gpt-4.1-mini", url: provider.url, apiKey: "sk-test-key" },
      tools: { ask_expert: askExpert },
    });
    const app = mastraWith(exporter, { agents: { host, expert } });
    const result = await app.getAgent("host").generate("What is the meaning of life?");
    expect(result.text).toBe("The expert says 42.");
    await exporter.flush();
    const { events } = await run.finish();
    expect(exporter.diagnostics()).toEqual([]);

    const tool = starts(events, "tool").find((e) => e.name === "ask_expert")!;
    const inner = starts(events, "agent").find((e) => e.name === "expert")!;
    expect(inner.parent_uuid).toBe(tool.uuid);
    expect(ancestryOf(events)(inner.uuid)).toEqual(["expert", "ask_expert", "step: 0", "llm: 'gpt-4.1-mini'", "host"]);
    // the host's first call ended (by its time) before the tool started, and the tool after the expert's call
    const [hostStart, expertStart] = starts(events, "llm");
    const hostCall = ends(events, "llm").find((e) => e.uuid === hostStart!.uuid);
    const expertCall = ends(events, "llm").find((e) => e.uuid === expertStart!.uuid);
    expect(ancestryOf(events)(expertStart!.parent_uuid)).toEqual([
      "step: 0",
      "llm: 'gpt-4.1-mini'",
      "expert",
      "ask_expert",
      "step: 0",
      "llm: 'gpt-4.1-mini'",
      "host",
    ]);
    const toolEnd = ends(events, "tool")[0]!;
    const at = (e: { timestamp: string | number }) => (typeof e.timestamp === "number" ? e.timestamp : Date.parse(e.timestamp));
    expect(at(hostCall!)).toBeLessThanOrEqual(at(tool));
    expect(at(expertCall!)).toBeLessThanOrEqual(at(toolEnd));
    expect(toolEnd.data).toEqual({ answer: "42" });
    expect(scopesOf(events).filter((e) => e.scope_category === "start").length).toBe(
      scopesOf(events).filter((e) => e.scope_category === "end").length,
    );
  });

  it("a failed span ends its scope with the error; an event span is a mark under its parent", async () => {
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const app = mastraWith(exporter, {});
    const root = app.observability.getDefaultInstance()!.startSpan({ type: SpanType.GENERIC, name: "batch" });
    root.createEventSpan({ type: SpanType.GENERIC, name: "checkpoint", output: { done: 3 } });
    root.error({ error: new Error("disk full"), endSpan: true });
    await exporter.flush();
    const { events } = await run.finish();
    const batch = starts(events, "function").find((e) => e.name === "batch")!;
    const mark = events.find((e): e is MarkEvent => e.kind === "mark" && e.name === "checkpoint")!;
    expect(mark.parent_uuid).toBe(batch.uuid);
    expect(mark.data).toEqual({ done: 3 });
    const end = ends(events, "function").find((e) => e.name === "batch")!;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(end.metadata)).toContain("disk full");
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("a workflow run becomes a scope with its steps as scopes, their input, output and status", async () => {
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const double = createStep({
      id: "double",
      inputSchema: z.object({ n: z.number() }),
      outputSchema: z.object({ n: z.number() }),
      execute: async ({ inputData }) => ({ n: inputData.n * 2 }),
    });
    const describeIt = createStep({
      id: "describe",
      inputSchema: z.object({ n: z.number() }),
      outputSchema: z.object({ text: z.string() }),
      execute: async ({ inputData }) => ({ text: `n is ${inputData.n}` }),
    });
    const workflow = createWorkflow({
      id: "doubler",
      inputSchema: z.object({ n: z.number() }),
      outputSchema: z.object({ text: z.string() }),
    })
      .then(double)
      .then(describeIt)
      .commit();
    const app = mastraWith(exporter, { workflows: { doubler: workflow } });
    const wf = await app.getWorkflow("doubler").createRun();
    const result = await run.runtime.withScope("nightly", () => wf.start({ inputData: { n: 21 } }));
    expect(result.status).toBe("success");
    await exporter.flush();
    const { events } = await run.finish();
    expect(exporter.diagnostics()).toEqual([]);

    const fnStarts = starts(events, "function");
    const nightly = fnStarts.find((e) => e.name === "nightly")!;
    const wfStart = fnStarts.find((e) => e.name === "workflow run: 'doubler'")!;
    expect(wfStart.parent_uuid).toBe(nightly.uuid);
    expect(wfStart.data).toEqual({ n: 21 });
    const stepStarts = fnStarts.filter((e) => e.name.startsWith("workflow step:"));
    expect(stepStarts.map((e) => [e.name, e.parent_uuid, e.data])).toEqual([
      ["workflow step: 'double'", wfStart.uuid, { n: 21 }],
      ["workflow step: 'describe'", wfStart.uuid, { n: 42 }],
    ]);
    const fnEnds = ends(events, "function");
    expect(
      fnEnds
        .filter((e) => e.name.startsWith("workflow"))
        .map((e) => [e.name, e.data, (e.metadata as Record<string, unknown>)["mastra.status"]]),
    ).toEqual([
      ["workflow step: 'double'", { n: 42 }, "success"],
      ["workflow step: 'describe'", { text: "n is 42" }, "success"],
      ["workflow run: 'doubler'", { text: "n is 42" }, "success"],
    ]);
    // every scope ends once, after it started
    const ended = new Set(fnEnds.map((e) => e.uuid));
    expect(fnStarts.every((e) => ended.has(e.uuid))).toBe(true);
  });

  it("an agent's scorer result becomes an evaluation mark on the agent's scope, its run an evaluator scope", async () => {
    provider = await startScriptedProvider({ model: "gpt-4.1-mini", turns: [{ text: "Sunny." }] });
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const brevity = createScorer({ id: "brevity", name: "Brevity", description: "Short answers score high" })
      .generateScore(() => 0.9)
      .generateReason(({ score }) => `short enough (${score})`);
    const app = mastraWith(exporter, {
      agents: { weather: weatherAgent(provider.url, { brevity: { scorer: brevity, sampling: { type: "ratio", rate: 1 } } }) },
    });
    const evaluated = nextEvaluation(run.runtime);
    const result = await app.getAgent("weather").generate("Weather?");
    expect(result.text).toBe("Sunny.");
    const mark = await evaluated;
    await exporter.flush();
    const { events } = await run.finish();

    const agent = starts(events, "agent").find((e) => e.name === "weather-agent")!;
    expect(mark.parent_uuid).toBe(agent.uuid);
    expect(mark.data_schema).toEqual({ name: "relaytrace.evaluation", version: "1" });
    expect(mark.data satisfies unknown).toEqual({
      name: "Brevity",
      score: 0.9,
      explanation: "short enough (0.9)",
    } satisfies EvaluationData);
    expect(mark.metadata).toMatchObject({
      "mastra.scorer_id": "brevity",
      "mastra.score_source": "live",
      "mastra.trace_id": result.traceId,
      "mastra.span_id": result.spanId,
    });
    // the scorer's own run is traced too: an evaluator scope
    expect(starts(events, "evaluator").length).toBeGreaterThanOrEqual(1);
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("a score sent through Mastra's observability API lands on its span; one for an unknown span is counted", async () => {
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const app = mastraWith(exporter, {});
    const instance = app.observability.getDefaultInstance()!;
    const span = instance.startSpan({ type: SpanType.GENERIC, name: "judge-me", input: { q: 1 } });
    span.end({ output: { a: 2 } });
    await app.observability.addScore!({
      traceId: span.traceId,
      spanId: span.id,
      correlationContext: { traceId: span.traceId, spanId: span.id },
      score: { scorerId: "manual", score: 1, reason: "exact", scoreSource: "manual" },
    });
    // the older hook, called directly, with a trace-level score
    await exporter.addScoreToTrace({ traceId: span.traceId, score: 0.5, scorerName: "trace-judge" });
    // a span Mastra did not export: the score lands on its trace's root
    await exporter.addScoreToTrace({ traceId: span.traceId, spanId: "feedfacefeedface", score: 0.25, scorerName: "internal-judge" });
    await exporter.addScoreToTrace({ traceId: "f".repeat(32), spanId: "0".repeat(16), score: 0, scorerName: "lost" });
    await exporter.flush();
    const { events } = await run.finish();
    const scope = starts(events, "function").find((e) => e.name === "judge-me")!;
    const marks = events.filter((e): e is MarkEvent => e.kind === "mark" && e.name === "gen_ai.evaluation.result");
    expect(marks.map((m) => [m.parent_uuid === scope.uuid, m.data])).toEqual([
      [true, { name: "manual", score: 1, explanation: "exact" }],
      [true, { name: "trace-judge", score: 0.5 }],
      [true, { name: "internal-judge", score: 0.25 }],
      [false, { name: "lost", score: 0 }],
    ]);
    expect(exporter.diagnostics().map((d) => [d.code, d.count])).toEqual([["mastra.score_unmatched", 1]]);
  });

  it("spans that never end are bounded: past maxOpenSpans the oldest ends with an error; shutdown ends and reports the rest", async () => {
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime, maxOpenSpans: 3 });
    const app = mastraWith(exporter, {});
    const instance = app.observability.getDefaultInstance()!;
    const root = instance.startSpan({ type: SpanType.GENERIC, name: "root" });
    for (let i = 0; i < 4; i++) root.createChildSpan({ type: SpanType.GENERIC, name: `stuck-${i}` });
    expect(exporter.openSpanCount()).toBe(3);
    expect(exporter.diagnostics().map((d) => [d.code, d.count])).toEqual([["mastra.unended_span_dropped", 2]]);

    await app.shutdown();
    mastra = undefined;
    expect(exporter.openSpanCount()).toBe(0);
    const { events } = await run.finish();
    expect(exporter.diagnostics().map((d) => [d.code, d.count])).toEqual([
      ["mastra.unended_span_dropped", 2],
      ["mastra.unended_at_shutdown", 3],
    ]);
    const endsByName = new Map(ends(events, "function").map((e) => [e.name, e]));
    expect([...endsByName.keys()].sort()).toEqual(["root", "stuck-0", "stuck-1", "stuck-2", "stuck-3"]);
    for (const end of endsByName.values()) expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    // every stuck child still names the root as its parent
    const rootStart = starts(events, "function").find((e) => e.name === "root")!;
    expect(
      starts(events, "function")
        .filter((e) => e.name.startsWith("stuck"))
        .every((e) => e.parent_uuid === rootStart.uuid),
    ).toBe(true);
  });

  it("telemetry never throws into the app: a malformed event is counted, not thrown", async () => {
    const run = integrationRun();
    const exporter = new RelaytraceExporter({ runtime: run.runtime });
    const malformed = { type: "span_started", exportedSpan: null } as unknown as Parameters<RelaytraceExporter["exportTracingEvent"]>[0];
    await expect(exporter.exportTracingEvent(malformed)).resolves.toBeUndefined();
    await expect(exporter.onScoreEvent(null as unknown as Parameters<RelaytraceExporter["onScoreEvent"]>[0])).resolves.toBeUndefined();
    expect(exporter.diagnostics().find((d) => d.code === "mastra.event_failed")?.count).toBe(2);
    await run.finish();
  });
});
