import { Agent, Runner, getGlobalTraceProvider, setTraceProcessors, tool } from "@openai/agents-core";
import { OpenAIChatCompletionsModel } from "@openai/agents-openai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RelaytraceProcessor } from "relaytrace/openai-agents";
import { replayTools, startScriptedProvider } from "relaytrace/testing";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { replayServers, WEATHER_TURNS } from "../support/recorded-run.js";

// An OpenAI Agents JS run recorded through relaytrace's trace processor replays for the same
// agent: its OpenAI client pointed at the replay server, the tool answered from the recording.

const replay = replayServers();
beforeAll(() => getGlobalTraceProvider().setDisabled(false));
afterAll(() => {
  setTraceProcessors([]);
  getGlobalTraceProvider().setDisabled(true);
});

function weatherAgent(url: string, execute: (input: { city: string }) => Promise<unknown>) {
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: url, apiKey: "k", maxRetries: 0 }), "m-1");
  const getWeather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string() }),
    execute,
  });
  return new Agent({ name: "weather-agent", instructions: "Be brief.", model, tools: [getWeather] });
}

describe("replaying an OpenAI Agents JS run", () => {
  it("answers the same agent with the recorded model calls and tool result", async () => {
    const scripted = await startScriptedProvider({ turns: WEATHER_TURNS, model: "m-1" });
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const processor = new RelaytraceProcessor({ runtime });
    setTraceProcessors([processor]);
    let realCalls = 0;
    const recorded = await new Runner().run(
      weatherAgent(scripted.url, async ({ city }) => {
        realCalls++;
        return { city, temp_c: 4 };
      }),
      "Weather in Oslo?",
    );
    await processor.forceFlush();
    await runtime.flush();
    setTraceProcessors([]);
    await scripted.close();

    const server = await replay({ events });
    const [replayed] = replayTools(events);
    const result = await new Runner().run(
      weatherAgent(server.url, async (input) => JSON.parse((await replayed!.execute(input)).output)),
      "Weather in Oslo?",
    );
    expect(result.finalOutput).toBe(recorded.finalOutput);
    expect(server.mismatches).toEqual([]);
    expect(server.served).toBe(2);
    expect(realCalls).toBe(1);
  });
});
