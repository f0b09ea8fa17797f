import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime, ScopeEvent } from "relaytrace";
import type { AtifTrajectory } from "relaytrace/exporters";
import { relaytraceMiddleware, traceAgent, traceTools } from "relaytrace/ai-sdk";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { ANNOTATION, MASKED, REFUSAL, attr, ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const TURNS = [
  {
    toolCalls: [
      { id: "call_w", name: "get_weather", arguments: { city: "Oslo" } },
      { id: "call_d", name: "delete_account", arguments: { user: "root" } },
    ],
    usage: { promptTokens: 40, completionTokens: 12, cachedTokens: 16 },
  },
  { text: "It is 4 °C in Oslo; I could not delete the account.", usage: { promptTokens: 70, completionTokens: 14 } },
];

/** The first end event of a scope of `category`, as it is published (no waiting on time). */
function scopeEnd(runtime: Runtime, category: string): Promise<ScopeEvent> {
  return new Promise((resolve) => {
    const off = runtime.subscribe(`wait-${category}`, (e) => {
      if (e.kind === "scope" && e.scope_category === "end" && e.category === category) {
        off();
        resolve(e);
      }
    });
  });
}

function setUp(run: ReturnType<typeof integrationRun>, url: string) {
  const scripted = createOpenAICompatible({ name: "scripted", baseURL: url, apiKey: "sk-test-key", includeUsage: true });
  const model = wrapLanguageModel({
    model: scripted.chatModel("gpt-4.1-mini"),
    middleware: relaytraceMiddleware({ runtime: run.runtime }),
  });
  const seen: unknown[] = [];
  const tools = traceTools(
    {
      get_weather: tool({
        description: "Current weather of a city",
        inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        execute: async (input) => {
          seen.push(input);
          return { temp_c: 4 };
        },
      }),
      delete_account: tool({
        description: "Delete a user account",
        inputSchema: jsonSchema<{ user: string }>({ type: "object", properties: { user: { type: "string" } }, required: ["user"] }),
        execute: async () => {
          seen.push("delete ran");
          return "deleted";
        },
      }),
    },
    { runtime: run.runtime },
  );
  return { model, tools, seen };
}

describe("relaytrace/ai-sdk with the real AI SDK against a scripted OpenAI-compatible server", () => {
  it("a multi-step generateText run is one agent scope with its llm and tool scopes, usage, tool call ids, ATIF and gen_ai spans", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun("gen_ai");
    const { model, tools, seen } = setUp(run, provider.url);

    const result = await traceAgent(
      "weather-agent",
      () => generateText({ model, tools, stopWhen: stepCountIs(4), system: "Be brief.", prompt: "Weather in Oslo? Also delete root." }),
      { runtime: run.runtime, input: "Weather in Oslo? Also delete root." },
    );
    expect(result.text).toBe("It is 4 °C in Oslo; I could not delete the account.");
    // the tool ran with the real arguments; the guarded one never ran
    expect(seen).toEqual([{ city: "Oslo" }]);

    // the refusal reached the model as the tool's error, and the run went on to a second step
    const second = provider.requests[1]!.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] };
    const refusal = second.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_d");
    expect(JSON.stringify(refusal?.content)).toContain(REFUSAL);

    const { events, spans, trajectories } = await run.finish();
    const [agent] = starts(events, "agent");
    expect(agent!.name).toBe("weather-agent");
    const llmStarts = starts(events, "llm");
    const toolEnds = ends(events, "tool");
    expect(llmStarts).toHaveLength(2);
    // readers pick the codec by data_schema, so a foreign reader of the file decodes these bodies
    for (const s of llmStarts) expect(s.data_schema).toEqual({ name: "openai/chat-completions", version: "1" });
    for (const s of [...llmStarts, ...starts(events, "tool")]) expect(s.parent_uuid).toBe(agent!.uuid);
    expect(toolEnds.map((e) => [e.name, e.category_profile?.["tool_call_id"]])).toEqual([["get_weather", "call_w"]]);

    // the intercept annotated the result; the sanitizer masked the argument in the event only
    expect(toolEnds[0]!.category_profile).toMatchObject({ tool_result_annotation: ANNOTATION });
    expect(toolEnds[0]!.data).toEqual({ temp_c: 4 });
    expect(starts(events, "tool")[0]!.data).toEqual({ city: MASKED });
    const guard = ends(events, "guardrail").find((e) => (e.data as { rejected?: boolean }).rejected);
    expect(guard?.data).toMatchObject({ rejection_reason: REFUSAL });

    // the llm request and response as Chat Completions bodies: messages, tools, tool calls, usage
    const firstRequest = llmStarts[0]!.data as {
      content: { model: string; messages: { role: string }[]; tools: { function: { name: string } }[] };
    };
    expect(firstRequest.content.model).toBe("gpt-4.1-mini");
    expect(firstRequest.content.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(firstRequest.content.tools.map((t) => t.function.name)).toEqual(["get_weather", "delete_account"]);
    expect(JSON.stringify(llmStarts[0]!.data)).not.toContain("sk-test-key");
    const [firstEnd, secondEnd] = ends(events, "llm");
    // priced from the bundled table, like every model call whose model and usage are known
    expect(firstEnd!.category_profile).toEqual({
      model_name: "gpt-4.1-mini",
      cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }),
    });
    expect(firstEnd!.data).toMatchObject({
      model: "gpt-4.1-mini",
      choices: [
        { finish_reason: "tool_calls", message: { tool_calls: [{ id: "call_w", function: { name: "get_weather" } }, { id: "call_d" }] } },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } },
    });
    expect(secondEnd!.data).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 70 } });
    const secondRequest = starts(events, "llm")[1]!.data as { content: { messages: { role: string; tool_call_id?: string }[] } };
    expect(secondRequest.content.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_w", "call_d"]);

    // ATIF: user step, the agent step with both calls and their observations, the final answer
    expect(trajectories).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[1]!.tool_calls?.map((c) => [c.tool_call_id, c.function_name])).toEqual([
      ["call_w", "get_weather"],
      ["call_d", "delete_account"],
    ]);
    const observed = steps[1]!.observation?.results ?? [];
    expect(observed.find((r) => r.source_call_id === "call_w")).toMatchObject({ extra: { tool_result_annotation: ANNOTATION } });
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, cached_tokens: 16 });
    expect(steps[2]!.message).toBe("It is 4 °C in Oslo; I could not delete the account.");

    // gen_ai spans: one agent, two chats with usage, one tool under the agent
    const byName = (n: string) => spans.filter((s) => s.name === n);
    const [agentSpan] = byName("invoke_agent weather-agent");
    const chats = byName("chat gpt-4.1-mini");
    expect(chats).toHaveLength(2);
    expect(attr(chats[0]!, "gen_ai.usage.input_tokens")).toBe(40);
    expect(attr(chats[0]!, "gen_ai.usage.cache_read.input_tokens")).toBe(16);
    expect(attr(chats[0]!, "gen_ai.response.finish_reasons")).toEqual(["tool_call"]);
    const [toolSpan] = byName("execute_tool get_weather");
    expect(attr(toolSpan!, "gen_ai.tool.call.id")).toBe("call_w");
    expect(toolSpan!.parentSpanContext?.spanId).toBe(agentSpan!.spanContext().spanId);
  });

  it("streamText: the streamed call records text, tool calls, usage and time to first chunk", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun("gen_ai");
    const { model, tools } = setUp(run, provider.url);
    const text = await traceAgent(
      "stream-agent",
      async () => {
        const result = streamText({ model, tools, stopWhen: stepCountIs(4), prompt: "Weather in Oslo?" });
        let out = "";
        for await (const delta of result.textStream) out += delta;
        return out;
      },
      { runtime: run.runtime },
    );
    expect(text).toBe("It is 4 °C in Oslo; I could not delete the account.");
    const { events } = await run.finish();
    const llm = ends(events, "llm");
    expect(llm).toHaveLength(2);
    expect(starts(events, "llm").every((s) => s.attributes.includes("streaming"))).toBe(true);
    expect(typeof (llm[0]!.metadata as Record<string, unknown>)["time_to_first_chunk_ms"]).toBe("number");
    // The answer streams as several text deltas: the time from each to the next.
    const gaps = (llm[1]!.metadata as Record<string, unknown>)["time_per_output_chunk_ms"] as number[];
    expect(gaps.length).toBeGreaterThan(0);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(0);
    expect(llm[0]!.data).toMatchObject({
      choices: [{ message: { tool_calls: [{ id: "call_w" }, { id: "call_d" }] } }],
      usage: { prompt_tokens: 40 },
    });
    expect(llm[1]!.data).toMatchObject({ choices: [{ message: { content: "It is 4 °C in Oslo; I could not delete the account." } }] });
    const agentUuid = starts(events, "agent")[0]!.uuid;
    expect(
      scopesOf(events)
        .filter((e) => e.category === "tool")
        .every((e) => e.parent_uuid === agentUuid),
    ).toBe(true);
  });

  it("traceAgent returning streamText: the agent scope ends once the app drained the stream, after its children", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun("gen_ai");
    const { model, tools } = setUp(run, provider.url);
    const agentEnd = scopeEnd(run.runtime, "agent");
    const result = await traceAgent(
      "stream-agent",
      () => streamText({ model, tools, stopWhen: stepCountIs(4), prompt: "Weather in Oslo?" }),
      {
        runtime: run.runtime,
      },
    );
    let out = "";
    for await (const delta of result.textStream) out += delta;
    expect(out).toBe("It is 4 °C in Oslo; I could not delete the account.");
    expect(await result.text).toBe(out);
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "OK" });

    const { events, trajectories } = await run.finish();
    const agent = starts(events, "agent")[0]!;
    const children = scopesOf(events).filter((e) => e.category === "llm" || e.category === "tool");
    expect(children.filter((e) => e.scope_category === "start").map((e) => e.category)).toEqual(["llm", "tool", "llm"]);
    for (const e of children) expect(e.parent_uuid).toBe(agent.uuid);
    // every child ended before the agent did
    const agentEndIndex = events.indexOf(end);
    for (const e of children) expect(events.indexOf(e)).toBeLessThan(agentEndIndex);
    expect(trajectories).toHaveLength(1);
    expect(trajectories[0]!.steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(trajectories[0]!.steps[0]!.message).toBe("Weather in Oslo?");
  });

  it("without traceAgent each model call is its own ATIF trajectory: the user's text, then the answer, never the request JSON", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun();
    const { model, tools } = setUp(run, provider.url);
    const result = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: "Weather in Oslo?" });
    expect(result.text).toBe("It is 4 °C in Oslo; I could not delete the account.");
    const { events, trajectories } = await run.finish();
    // each model call (and each traced tool, on its own too) is a root scope: one trajectory each
    const calls = starts(events, "llm").map((s) => trajectories.find((t) => t.trajectory_id === s.uuid));
    expect(calls.map((t) => t?.steps.map((s) => s.source))).toEqual([["user", "agent"], ["agent"]]);
    const [first, second] = calls as [AtifTrajectory, AtifTrajectory];
    expect(first.steps[0]!.message).toBe("Weather in Oslo?");
    expect(first.steps[1]!.tool_calls?.map((c) => c.function_name)).toEqual(["get_weather", "delete_account"]);
    // the second call continues after the tool results: no user turn, the answer as the agent's message
    expect(second.steps[0]!.message).toBe("It is 4 °C in Oslo; I could not delete the account.");
    expect(JSON.stringify(calls)).not.toContain("user-agent");
  });

  it("traceAgent returning streamText: cancelling the stream ends the agent scope as cancelled", async () => {
    provider = await startScriptedProvider({ turns: [{ text: "one two three" }], model: "gpt-4.1-mini" });
    const run = integrationRun();
    const { model } = setUp(run, provider.url);
    const agentEnd = scopeEnd(run.runtime, "agent");
    const result = await traceAgent("stream-agent", () => streamText({ model, prompt: "Count" }), { runtime: run.runtime });
    for await (const delta of result.fullStream) {
      if (delta.type === "text-delta") break;
    }
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(end.metadata)).toContain("stream cancelled");
  });

  it("traceAgent returning streamText: a run that fails ends the agent scope with the error", async () => {
    provider = await startScriptedProvider({ turns: [{ status: 400, body: { error: { message: "bad request: no such model" } } }] });
    const run = integrationRun();
    const { model } = setUp(run, provider.url);
    const agentEnd = scopeEnd(run.runtime, "agent");
    const seen: unknown[] = [];
    const result = await traceAgent(
      "stream-agent",
      () => streamText({ model, prompt: "hi", maxRetries: 0, onError: ({ error }) => void seen.push(error) }),
      {
        runtime: run.runtime,
      },
    );
    for await (const _ of result.textStream) void _;
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(seen).toHaveLength(1);
    const { events } = await run.finish();
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });

  it("a failing model call ends its llm scope with the error, and the app sees the SDK's error", async () => {
    provider = await startScriptedProvider({ turns: [{ status: 400, body: { error: { message: "bad request: no such model" } } }] });
    const run = integrationRun();
    const { model } = setUp(run, provider.url);
    await expect(generateText({ model, prompt: "hi", maxRetries: 0 })).rejects.toThrow(/no such model/);
    const { events } = await run.finish();
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });
});
