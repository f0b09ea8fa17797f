import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, PromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RelaytraceCallbackHandler } from "relaytrace/langchain";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { MASKED, attr, ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const getWeather = tool(
  async ({ city }: { city: string }) =>
    city === "Atlantis" ? Promise.reject(new Error("no such city")) : JSON.stringify({ city, temp_c: 4 }),
  {
    name: "get_weather",
    description: "Current weather of a city",
    schema: z.object({ city: z.string() }),
  },
);

/** A small tool loop as a LangChain runnable: model, the tools it asks for, model again. */
function weatherAgent(url: string) {
  const model = new ChatOpenAI({ model: "gpt-4.1-mini", apiKey: "sk-test-key", configuration: { baseURL: url }, maxRetries: 0 }).bindTools([
    getWeather,
  ]);
  return RunnableLambda.from(async (question: string, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new SystemMessage("Be brief."), new HumanMessage(question)];
    for (let turn = 0; turn < 4; turn++) {
      const reply = (await model.invoke(messages, config)) as AIMessage;
      messages.push(reply);
      if (!reply.tool_calls?.length) return reply.content;
      for (const call of reply.tool_calls) {
        messages.push(await getWeather.invoke({ ...call, type: "tool_call" }, config));
      }
    }
    return "gave up";
  }).withConfig({ runName: "weather-agent" });
}

describe("relaytrace/langchain with real LangChain.js (ChatOpenAI) against a scripted OpenAI-compatible server", () => {
  it("chain, chat-model and tool runs become agent, llm and tool scopes nested by run ids, with usage and tool call ids", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        {
          toolCalls: [{ id: "call_o", name: "get_weather", arguments: { city: "Oslo" } }],
          usage: { promptTokens: 40, completionTokens: 12, cachedTokens: 16 },
        },
        { text: "It is 4 °C in Oslo.", usage: { promptTokens: 70, completionTokens: 8 } },
      ],
    });
    const run = integrationRun("openinference");
    run.runtime.registerMetadataInjector("tenant", 0, () => ({ tenant: "acme" }));
    const handler = new RelaytraceCallbackHandler({ runtime: run.runtime });
    const answer = await run.runtime.withScope("request", () =>
      weatherAgent(provider!.url).invoke("Weather in Oslo?", { callbacks: [handler] }),
    );
    expect(answer).toBe("It is 4 °C in Oslo.");

    const { events, spans, trajectories } = await run.finish();
    const [request] = starts(events, "function").filter((e) => e.name === "request");
    const [agent] = starts(events, "agent");
    expect(agent).toMatchObject({ name: "weather-agent", parent_uuid: request!.uuid, data: { input: "Weather in Oslo?" } });
    const llmStarts = starts(events, "llm");
    expect(llmStarts).toHaveLength(2);
    for (const s of llmStarts) expect(s.data_schema).toEqual({ name: "openai/chat-completions", version: "1" });
    for (const s of [...llmStarts, ...starts(events, "tool")]) expect(s.parent_uuid).toBe(agent!.uuid);

    // the request as sent: messages, the bound tool's definition, the model
    const body = (
      llmStarts[0]!.data as { content: { model: string; messages: { role: string }[]; tools: { function: { name: string } }[] } }
    ).content;
    expect(body.model).toBe("gpt-4.1-mini");
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.tools.map((t) => t.function.name)).toEqual(["get_weather"]);
    expect(JSON.stringify(events)).not.toContain("sk-test-key");
    const [firstEnd] = ends(events, "llm");
    expect(firstEnd!.data).toMatchObject({
      model: "gpt-4.1-mini",
      choices: [{ finish_reason: "tool_calls", message: { tool_calls: [{ id: "call_o", function: { name: "get_weather" } }] } }],
      usage: { prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } },
    });

    // the tool run: call id, output; the sanitizer masked the argument; the injector reached every event
    const [toolStart] = starts(events, "tool");
    const [toolEnd] = ends(events, "tool");
    expect(toolStart!.data).toEqual({ city: MASKED });
    expect(toolEnd).toMatchObject({
      name: "get_weather",
      category_profile: { tool_call_id: "call_o" },
      data: { city: "Oslo", temp_c: 4 },
      metadata: { "otel.status_code": "OK" },
    });
    expect(events.every((e) => (e.metadata as Record<string, unknown> | null)?.["tenant"] === "acme")).toBe(true);
    expect(ends(events, "agent")[0]!.metadata).toMatchObject({ "otel.status_code": "OK" });

    // ATIF
    expect(trajectories).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[1]!.tool_calls?.map((c) => [c.tool_call_id, c.function_name])).toEqual([["call_o", "get_weather"]]);
    expect(steps[1]!.observation?.results.map((r) => r.source_call_id)).toEqual(["call_o"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, cached_tokens: 16 });
    expect(steps[2]!.message).toBe("It is 4 °C in Oslo.");

    // openinference spans
    const agentSpan = spans.find((s) => s.name === "weather-agent")!;
    expect(attr(agentSpan, "openinference.span.kind")).toBe("AGENT");
    const llmSpans = spans.filter((s) => attr(s, "openinference.span.kind") === "LLM");
    expect(llmSpans).toHaveLength(2);
    expect(attr(llmSpans[0]!, "llm.token_count.prompt")).toBe(40);
    const toolSpan = spans.find((s) => attr(s, "openinference.span.kind") === "TOOL")!;
    expect(toolSpan.parentSpanContext?.spanId).toBe(agentSpan.spanContext().spanId);
  });

  it("a failing tool and a failing chain end their scopes with the error", async () => {
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_a", name: "get_weather", arguments: { city: "Atlantis" } }] }],
    });
    const run = integrationRun();
    const handler = new RelaytraceCallbackHandler({ runtime: run.runtime });
    await expect(weatherAgent(provider.url).invoke("Weather in Atlantis?", { callbacks: [handler] })).rejects.toThrow(/no such city/);
    const { events } = await run.finish();
    expect(ends(events, "tool")[0]).toMatchObject({
      category_profile: { tool_call_id: "call_a" },
      data: "no such city",
      metadata: { "otel.status_code": "ERROR" },
    });
    expect(ends(events, "agent")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    const started = new Set(
      scopesOf(events)
        .filter((e) => e.scope_category === "start")
        .map((e) => e.uuid),
    );
    for (const e of scopesOf(events)) if (e.scope_category === "end") started.delete(e.uuid);
    expect([...started]).toEqual([]);
  });

  it("a tool run LangChain hands no call id (the tool invoked with the call's arguments) gets the id of the model's call with that name and arguments", async () => {
    provider = await startScriptedProvider({
      turns: [
        {
          toolCalls: [
            { id: "call_o", name: "get_weather", arguments: { city: "Oslo" } },
            { id: "call_b", name: "get_weather", arguments: { city: "Bergen" } },
          ],
        },
        { text: "Cold in both." },
      ],
    });
    const run = integrationRun();
    const handler = new RelaytraceCallbackHandler({ runtime: run.runtime });
    const model = new ChatOpenAI({
      model: "gpt-4.1-mini",
      apiKey: "sk-test-key",
      configuration: { baseURL: provider.url },
      maxRetries: 0,
    }).bindTools([getWeather]);
    const agent = RunnableLambda.from(async (question: string, config?: RunnableConfig) => {
      const messages: BaseMessage[] = [new HumanMessage(question)];
      const reply = (await model.invoke(messages, config)) as AIMessage;
      messages.push(reply);
      // In reverse order, with only the arguments: which run answers which call is up to the handler.
      for (const call of [...reply.tool_calls!].reverse()) {
        const content = (await getWeather.invoke(call.args as { city: string }, config)) as string;
        messages.push(new ToolMessage({ content, tool_call_id: call.id! }));
      }
      return (await model.invoke(messages, config)).content;
    });
    expect(await agent.invoke("Weather in Oslo and Bergen?", { callbacks: [handler] })).toBe("Cold in both.");
    const { events } = await run.finish();
    expect(starts(events, "tool").map((e) => e.category_profile?.["tool_call_id"])).toEqual(["call_b", "call_o"]);
    expect(ends(events, "tool").map((e) => e.category_profile?.["tool_call_id"])).toEqual(["call_b", "call_o"]);
  });

  it("a model run after a prompt template in the same chain records that prompt: run name, template, values", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [{ text: "It ships Monday." }, { text: "Hello." }, { text: "Again." }],
    });
    const run = integrationRun("openinference");
    const handler = new RelaytraceCallbackHandler({ runtime: run.runtime });
    const model = new ChatOpenAI({ model: "gpt-4.1-mini", apiKey: "sk-test-key", configuration: { baseURL: provider.url }, maxRetries: 0 });
    const chat = ChatPromptTemplate.fromMessages([
      ["system", "You help {customer}."],
      ["human", "{question}"],
    ]).withConfig({ runName: "order-status" });
    await chat.pipe(model).invoke({ customer: "Ada", question: "Where is order 5?" }, { callbacks: [handler] });
    await PromptTemplate.fromTemplate("Say {word}.")
      .pipe(model)
      .invoke({ word: "hello" }, { callbacks: [handler] });
    await model.invoke("Again?", { callbacks: [handler] });

    const { events, spans } = await run.finish();
    const prompts = starts(events, "llm").map((s) => s.category_profile?.["prompt"]);
    expect(prompts).toEqual([
      {
        name: "order-status",
        template: "system: You help {customer}.\nhuman: {question}",
        variables: { customer: "Ada", question: "Where is order 5?" },
      },
      { name: "PromptTemplate", template: "Say {word}.", variables: { word: "hello" } },
      undefined,
    ]);
    const llm = spans.filter((s) => s.attributes["openinference.span.kind"] === "LLM");
    expect(llm[0]!.attributes["llm.prompt_template.template"]).toBe("system: You help {customer}.\nhuman: {question}");
    expect(llm[0]!.attributes["llm.prompt_template.variables"]).toBe('{"customer":"Ada","question":"Where is order 5?"}');
    expect(llm[2]!.attributes["llm.prompt_template.template"]).toBeUndefined();
    await run.runtime.shutdown();
  });
});
