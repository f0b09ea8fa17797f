import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RelaytraceCallbackHandler } from "relaytrace/langchain";
import { replayTools, startScriptedProvider } from "relaytrace/testing";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { replayServers, WEATHER_TURNS } from "../support/recorded-run.js";

// A LangChain.js run recorded through relaytrace's callback handler replays for the same chain:
// ChatOpenAI pointed at the replay server, the tool answered from the recording.

const replay = replayServers();

function weatherChain(url: string, execute: (input: { city: string }) => Promise<string>) {
  const getWeather = tool(execute, {
    name: "get_weather",
    description: "Current weather for a city",
    schema: z.object({ city: z.string() }),
  });
  const model = new ChatOpenAI({ model: "m-1", apiKey: "k", configuration: { baseURL: url }, maxRetries: 0 }).bindTools([getWeather]);
  return RunnableLambda.from(async (question: string, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new SystemMessage("Be brief."), new HumanMessage(question)];
    for (let turn = 0; turn < 4; turn++) {
      const reply = (await model.invoke(messages, config)) as AIMessage;
      messages.push(reply);
      if (!reply.tool_calls?.length) return reply.content;
      for (const call of reply.tool_calls) messages.push(await getWeather.invoke({ ...call, type: "tool_call" }, config));
    }
    return "gave up";
  });
}

describe("replaying a LangChain.js run", () => {
  it("answers the same chain strictly, with the recorded tool result and no real tool call", async () => {
    const scripted = await startScriptedProvider({ turns: WEATHER_TURNS, model: "m-1" });
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    let realCalls = 0;
    const recorded = await weatherChain(scripted.url, async ({ city }) => {
      realCalls++;
      return JSON.stringify({ city, temp_c: 4 });
    }).invoke("Weather in Oslo?", { callbacks: [new RelaytraceCallbackHandler({ runtime })] });
    await runtime.flush();
    await scripted.close();
    expect(realCalls).toBe(1);

    const server = await replay({ events });
    const [replayed] = replayTools(events);
    const answer = await weatherChain(server.url, async (input) => (await replayed!.execute(input)).output).invoke("Weather in Oslo?");
    expect(answer).toBe(recorded);
    expect(server.mismatches).toEqual([]);
    expect(server.served).toBe(2);
    expect(realCalls).toBe(1);
  });
});
