import {
  Agent,
  Runner,
  getGlobalTraceProvider,
  setTraceProcessors,
  tool,
  withCustomSpan,
  withMCPListToolsSpan,
  withSpeechGroupSpan,
  withSpeechSpan,
  withTrace,
  withTranscriptionSpan,
} from "@openai/agents-core";
import { OpenAIChatCompletionsModel, OpenAIResponsesModel } from "@openai/agents-openai";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RelaytraceProcessor } from "relaytrace/openai-agents";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { attr, ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

let provider: ScriptedProvider | undefined;
// The library turns tracing off when NODE_ENV is "test", as it is under vitest.
beforeAll(() => getGlobalTraceProvider().setDisabled(false));
afterAll(() => {
  setTraceProcessors([]);
  getGlobalTraceProvider().setDisabled(true);
});
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

/** The Responses API echoes the request's `instructions` in its response; the scripted server does not, so this fetch adds them. */
const echoInstructions: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const sent = JSON.parse(typeof init?.body === "string" ? init.body : "{}") as { instructions?: unknown };
  const body = (await response.json()) as Record<string, unknown>;
  const echoed = JSON.stringify({ ...body, instructions: sent.instructions ?? null });
  return new Response(echoed, { status: response.status, headers: { "content-type": "application/json" } });
};

function weatherAgent(url: string, api: "chat" | "responses" = "chat", fetchFn?: typeof fetch) {
  const client = new OpenAI({ baseURL: url, apiKey: "sk-test-key", ...(fetchFn ? { fetch: fetchFn } : {}) });
  const model = api === "chat" ? new OpenAIChatCompletionsModel(client, "gpt-4.1-mini") : new OpenAIResponsesModel(client, "gpt-4.1-mini");
  const getWeather = tool({
    name: "get_weather",
    description: "Current weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => (city === "Atlantis" ? Promise.reject(new Error("no such city")) : { city, temp_c: 4 }),
  });
  return new Agent({ name: "weather-agent", instructions: "Be brief.", model, tools: [getWeather] });
}

describe("relaytrace/openai-agents with the real Agents SDK against a scripted OpenAI-compatible server", () => {
  it("the trace, agent, generation and function spans become scopes with their times, usage, model and tool call ids", async () => {
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
    const processor = new RelaytraceProcessor({ runtime: run.runtime });
    setTraceProcessors([processor]);

    const result = await run.runtime.withScope("app-request", () =>
      new Runner().run(weatherAgent(provider!.url), "Weather in Oslo and Atlantis?"),
    );
    expect(result.finalOutput).toBe("Oslo is at 4 °C; Atlantis is unknown.");
    await processor.forceFlush();
    const { events, spans, trajectories } = await run.finish();
    expect(processor.failureCount()).toBe(0);

    // nesting: app scope > trace (function) > agent > llm, tool
    const [app] = starts(events, "function").filter((e) => e.name === "app-request");
    const trace = starts(events, "function").find((e) => e.name === "Agent workflow")!;
    expect(trace.parent_uuid).toBe(app!.uuid);
    const byUuid = new Map(scopesOf(events).map((e) => [e.uuid, e]));
    const ancestry = (uuid: string | null) => {
      const names: string[] = [];
      for (let at = uuid ? byUuid.get(uuid) : undefined; at; at = at.parent_uuid ? byUuid.get(at.parent_uuid) : undefined)
        names.push(at.name);
      return names;
    };
    const llmStarts = starts(events, "llm");
    expect(llmStarts).toHaveLength(2);
    for (const s of llmStarts) expect(s.data_schema).toEqual({ name: "openai/chat-completions", version: "1" });
    const chain = ["weather-agent", "Agent workflow", "Agent workflow", "app-request"];
    expect(ancestry(llmStarts[0]!.parent_uuid)).toEqual(["turn 1", ...chain]);
    expect(ancestry(llmStarts[1]!.parent_uuid)).toEqual(["turn 2", ...chain]);
    for (const t of starts(events, "tool")) expect(ancestry(t.parent_uuid)).toEqual(["turn 1", ...chain]);

    // tool scopes carry the model's call ids; the failing one ends with the error
    const toolEnds = ends(events, "tool");
    expect(toolEnds.map((e) => e.category_profile?.["tool_call_id"]).sort()).toEqual(["call_a", "call_o"]);
    const oslo = toolEnds.find((e) => e.category_profile?.["tool_call_id"] === "call_o")!;
    expect(oslo.data).toEqual({ city: "Oslo", temp_c: 4 });
    expect(oslo.metadata).toMatchObject({ "otel.status_code": "OK" });
    const atlantis = toolEnds.find((e) => e.category_profile?.["tool_call_id"] === "call_a")!;
    expect(atlantis.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    // the sanitizer masked the argument; the metadata injector reached every event
    expect(starts(events, "tool").map((e) => e.data)).toEqual([{ city: "[city]" }, { city: "[city]" }]);
    expect(events.every((e) => (e.metadata as Record<string, unknown> | null)?.["tenant"] === "acme")).toBe(true);

    // the span's own times: the llm scope lasts as long as the library's generation span
    const firstLlmEnd = ends(events, "llm")[0]!;
    expect(Date.parse(firstLlmEnd.timestamp)).toBeGreaterThanOrEqual(Date.parse(llmStarts[0]!.timestamp));
    // Priced from the bundled table: gpt-4.1-mini at $0.40 input, $0.10 cached, $1.60 output per
    // million tokens; 24 uncached + 16 cached prompt tokens = $0.0000112, 12 completion = $0.0000192.
    expect(firstLlmEnd.category_profile).toEqual({
      model_name: "gpt-4.1-mini",
      cost: expect.objectContaining({ total: 0.0000304, input: 0.0000112, output: 0.0000192, cache_read: 0.0000016, provider: "openai" }),
    });
    expect(firstLlmEnd.data).toMatchObject({
      usage: { prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } },
    });
    expect((llmStarts[0]!.data as { content: { messages: { role: string }[] } }).content.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
    ]);
    expect(JSON.stringify(events)).not.toContain("sk-test-key");

    // ATIF: the agent's trajectory with both calls, their observations and the usage
    expect(trajectories).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[1]!.tool_calls?.map((c) => c.tool_call_id)).toEqual(["call_o", "call_a"]);
    expect(steps[1]!.observation?.results.map((r) => r.source_call_id).sort()).toEqual(["call_a", "call_o"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, cached_tokens: 16 });
    expect(steps[2]!.message).toBe("Oslo is at 4 °C; Atlantis is unknown.");

    // openinference spans
    const kinds = spans.map((s) => [s.name, attr(s, "openinference.span.kind")]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["weather-agent", "AGENT"],
        ["openai.chat_completions", "LLM"],
        ["get_weather", "TOOL"],
      ]),
    );
    const llmSpan = spans.find((s) => s.name === "openai.chat_completions")!;
    expect(attr(llmSpan, "llm.token_count.prompt")).toBe(40);
    expect(attr(llmSpan, "llm.model_name")).toBe("gpt-4.1-mini");
  });

  it("response spans (the Responses model) become openai/responses llm scopes with the input, the response, usage and the tool call ids", async () => {
    provider = await startScriptedProvider({
      style: "openai-responses",
      model: "gpt-4.1-mini",
      turns: [
        {
          toolCalls: [{ id: "call_o", name: "get_weather", arguments: { city: "Oslo" } }],
          usage: { promptTokens: 40, completionTokens: 12 },
        },
        { text: "Oslo is at 4 °C.", usage: { promptTokens: 75, completionTokens: 10 } },
      ],
    });
    const run = integrationRun("openinference");
    const processor = new RelaytraceProcessor({ runtime: run.runtime });
    setTraceProcessors([processor]);
    const result = await new Runner().run(weatherAgent(provider.url, "responses"), "Weather in Oslo?");
    expect(result.finalOutput).toBe("Oslo is at 4 °C.");
    expect(provider.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    await processor.forceFlush();
    const { events, spans, trajectories } = await run.finish();
    expect(processor.failureCount()).toBe(0);
    const llmStarts = starts(events, "llm");
    expect(llmStarts.map((e) => [e.name, e.data_schema])).toEqual([
      ["openai.responses", { name: "openai/responses", version: "1" }],
      ["openai.responses", { name: "openai/responses", version: "1" }],
    ]);
    // the second request's input, in the Responses wire form the schema names
    expect((llmStarts[1]!.data as { content: { input: unknown[] } }).content.input).toEqual([
      { type: "message", role: "user", content: "Weather in Oslo?" },
      expect.objectContaining({ type: "function_call", call_id: "call_o", name: "get_weather", arguments: '{"city":"Oslo"}' }),
      expect.objectContaining({ type: "function_call_output", call_id: "call_o", output: '{"city":"Oslo","temp_c":4}' }),
    ]);
    const llmEnds = ends(events, "llm");
    expect(llmEnds.map((e) => e.category_profile)).toEqual([
      { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
      { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
    ]);
    expect(llmEnds[0]!.data).toMatchObject({ object: "response", usage: { input_tokens: 40, output_tokens: 12 } });
    // the function span got the call id the response asked for
    expect(ends(events, "tool").map((e) => [e.name, e.category_profile?.["tool_call_id"], e.data])).toEqual([
      ["get_weather", "call_o", { city: "Oslo", temp_c: 4 }],
    ]);

    // openinference: the second call's input has the assistant's call and the tool's answer, by call id
    const [, second] = spans.filter((s) => s.name === "openai.responses");
    expect(attr(second!, "llm.model_name")).toBe("gpt-4.1-mini");
    expect(attr(second!, "llm.input_messages.1.message.tool_calls.0.tool_call.id")).toBe("call_o");
    expect(attr(second!, "llm.input_messages.2.message.role")).toBe("tool");
    expect(attr(second!, "llm.input_messages.2.message.tool_call_id")).toBe("call_o");
    expect(attr(second!, "llm.input_messages.2.message.content")).toBe('{"city":"Oslo","temp_c":4}');
    expect(attr(second!, "llm.token_count.prompt")).toBe(75);

    // ATIF: the call, its observation and the final answer
    const steps = trajectories[0]!.steps;
    expect(steps.map((x) => x.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[1]!.tool_calls?.map((c) => [c.tool_call_id, c.function_name])).toEqual([["call_o", "get_weather"]]);
    expect(steps[1]!.observation?.results.map((r) => r.source_call_id)).toEqual(["call_o"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12 });
    expect(steps[2]!.message).toBe("Oslo is at 4 °C.");
  });

  it("a failing model call ends the llm scope with its error; what the library leaves open ends at shutdown", async () => {
    provider = await startScriptedProvider({ turns: [{ status: 500, body: { error: { message: "model exploded" } } }] });
    const run = integrationRun();
    const processor = new RelaytraceProcessor({ runtime: run.runtime });
    setTraceProcessors([processor]);
    await expect(
      withTrace("nightly-job", () => new Runner({ modelSettings: {} }).run(weatherAgent(provider!.url), "hi", { maxTurns: 1 })),
    ).rejects.toThrow();
    // the library never ends a trace whose run threw: shutting the processor down ends it
    await processor.shutdown();
    const { events } = await run.finish();
    expect(starts(events, "function").map((e) => e.name)).toContain("nightly-job");
    expect(ends(events, "function").find((e) => e.name === "nightly-job")?.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    const llmEnd = ends(events, "llm")[0];
    expect(llmEnd?.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    // every scope that started also ended
    const open = new Set(
      starts(events, "function")
        .concat(starts(events, "agent"), starts(events, "llm"))
        .map((e) => e.uuid),
    );
    for (const e of scopesOf(events)) if (e.scope_category === "end") open.delete(e.uuid);
    expect([...open]).toEqual([]);
  });

  it("handoffs become marks, guardrail and custom spans scopes of their categories, each agent its own scope", async () => {
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_h", name: "transfer_to_billing", arguments: {} }] }, { text: "Your invoice is paid." }],
    });
    const run = integrationRun();
    const processor = new RelaytraceProcessor({ runtime: run.runtime });
    setTraceProcessors([processor]);
    const client = new OpenAI({ baseURL: provider.url, apiKey: "sk-test-key" });
    const billing = new Agent({
      name: "billing",
      model: new OpenAIChatCompletionsModel(client, "gpt-4.1-mini"),
      handoffDescription: "Invoices",
    });
    const triage = new Agent({
      name: "triage",
      model: new OpenAIChatCompletionsModel(client, "gpt-4.1-mini"),
      handoffs: [billing],
      inputGuardrails: [{ name: "polite-input", execute: async () => ({ outputInfo: { polite: true }, tripwireTriggered: false }) }],
    });
    const result = await withTrace("support", async () => {
      await withCustomSpan(async () => undefined, { data: { name: "lookup-customer", data: { customer: 7 } } });
      return new Runner().run(triage, "Is my invoice paid?");
    });
    expect(result.finalOutput).toBe("Your invoice is paid.");
    const { events } = await run.finish();
    expect(starts(events, "agent").map((e) => e.name)).toEqual(["triage", "billing"]);
    const handoff = events.find((e) => e.kind === "mark" && e.name === "handoff");
    expect(handoff?.data).toEqual({ from_agent: "triage", to_agent: "billing" });
    expect(ends(events, "guardrail").map((e) => [e.name, e.data])).toEqual([["polite-input", { triggered: false }]]);
    const custom = starts(events, "custom")[0]!;
    expect(custom).toMatchObject({ name: "lookup-customer", category_profile: { subtype: "lookup-customer" }, data: { customer: 7 } });
    expect(starts(events, "function").find((e) => e.name === "support")).toBeDefined();
  });
  it("0.20: the response span's request keeps the instructions; task and turn usage, MCP listings and voice spans are mapped", async () => {
    provider = await startScriptedProvider({
      style: "openai-responses",
      model: "gpt-4.1-mini",
      turns: [{ text: "Oslo is at 4 °C.", usage: { promptTokens: 40, completionTokens: 12 } }],
    });
    const run = integrationRun("openinference");
    const processor = new RelaytraceProcessor({ runtime: run.runtime });
    setTraceProcessors([processor]);
    const result = await withTrace("voice-weather", async () => {
      await withMCPListToolsSpan(
        async (span) => {
          span.spanData.result = ["get_weather", "get_forecast"];
        },
        { data: { server: "weather-mcp" } },
      );
      await withSpeechGroupSpan(
        async () => {
          const transcription = { data: "AAAAAAAA", format: "pcm" };
          await withTranscriptionSpan(
            async (span) => {
              span.spanData.output = "Weather in Oslo?";
            },
            { data: { input: transcription, model: "gpt-4o-transcribe", model_config: { language: "en" } } },
          );
          await withSpeechSpan(async () => undefined, {
            data: { input: "Oslo is at 4 °C.", output: { data: "BBBBBBBBBBBB", format: "pcm" }, model: "gpt-4o-mini-tts" },
          });
        },
        { data: { input: "Oslo is at 4 °C." } },
      );
      return new Runner().run(weatherAgent(provider!.url, "responses", echoInstructions), "Weather in Oslo?");
    });
    expect(result.finalOutput).toBe("Oslo is at 4 °C.");
    expect(provider.requests[0]!.body).toMatchObject({ instructions: "Be brief." });
    await processor.forceFlush();
    const { events, spans } = await run.finish();
    expect(processor.failureCount()).toBe(0);
    const byUuid = new Map(scopesOf(events).map((e) => [e.uuid, e]));
    const parentName = (e: { parent_uuid: string | null }) => (e.parent_uuid ? byUuid.get(e.parent_uuid)?.name : undefined);

    // the instructions sit beside the input, as on the Responses wire, and reach the projection as the system message
    const [llmStart] = starts(events, "llm");
    expect(llmStart!.data).toMatchObject({
      content: { instructions: "Be brief.", input: [{ role: "user", content: "Weather in Oslo?" }] },
    });
    const llmSpan = spans.find((x) => x.name === "openai.responses")!;
    expect(attr(llmSpan, "llm.input_messages.0.message.role")).toBe("system");
    expect(attr(llmSpan, "llm.input_messages.0.message.content")).toBe("Be brief.");
    expect(attr(llmSpan, "llm.input_messages.1.message.content")).toBe("Weather in Oslo?");

    // the task and the turn are function scopes; their usage is their end's metadata
    const task = starts(events, "function").find((e) => e.name === "Agent workflow" && parentName(e) === "voice-weather")!;
    expect(task.metadata).toMatchObject({ "openai_agents.span_type": "task" });
    const turn = starts(events, "function").find((e) => e.name === "turn 1")!;
    expect(turn.metadata).toMatchObject({ "openai_agents.span_type": "turn", "openai_agents.agent_name": "weather-agent" });
    const endOf = (uuid: string) => scopesOf(events).find((e) => e.uuid === uuid && e.scope_category === "end")!;
    expect(endOf(task.uuid).metadata).toMatchObject({
      "openai_agents.usage": { input_tokens: 40, output_tokens: 12, requests: 1, total_tokens: 52 },
    });
    expect(endOf(turn.uuid).metadata).toMatchObject({ "openai_agents.usage": { input_tokens: 40, output_tokens: 12 } });

    // an MCP server's tool listing: a function scope with the tool names as output
    const listing = starts(events, "function").find((e) => e.name === "mcp_tools weather-mcp")!;
    expect(listing.metadata).toMatchObject({ "openai_agents.span_type": "mcp_tools", "openai_agents.mcp_server": "weather-mcp" });
    expect(endOf(listing.uuid).data).toEqual({ tools: ["get_weather", "get_forecast"] });

    // voice: the speech group a function scope, transcription and speech custom scopes inside it, audio summarized
    const group = starts(events, "function").find((e) => e.name === "speech_group")!;
    expect(group).toMatchObject({
      data: "Oslo is at 4 °C.",
      metadata: expect.objectContaining({ "openai_agents.span_type": "speech_group" }),
    });
    const [transcription, speech] = starts(events, "custom");
    expect(transcription).toMatchObject({
      name: "openai.transcription",
      category_profile: { subtype: "transcription", model_name: "gpt-4o-transcribe" },
      data: { format: "pcm", audio_base64_chars: 8 },
      metadata: expect.objectContaining({ "openai_agents.model_config": { language: "en" } }),
    });
    expect(speech).toMatchObject({
      name: "openai.speech",
      category_profile: { subtype: "speech", model_name: "gpt-4o-mini-tts" },
      data: "Oslo is at 4 °C.",
    });
    expect([parentName(transcription!), parentName(speech!)]).toEqual(["speech_group", "speech_group"]);
    expect(endOf(transcription!.uuid).data).toBe("Weather in Oslo?");
    expect(endOf(speech!.uuid).data).toEqual({ format: "pcm", audio_base64_chars: 12 });
    expect(JSON.stringify(events)).not.toContain("BBBBBBBBBBBB");
  });
});
