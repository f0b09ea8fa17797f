import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { relaytraceMiddleware, traceTools } from "relaytrace/ai-sdk";
import { replayTools, startScriptedProvider } from "relaytrace/testing";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { replayServers, WEATHER_TURNS } from "../support/recorded-run.js";

// A run of the real AI SDK, recorded through relaytrace's middleware, replays for the same AI SDK
// program: the recorded model answers and the recorded tool results, nothing real called.

const replay = replayServers();

function weatherProgram(url: string, runtime: Runtime, execute: (input: { city: string }) => Promise<unknown>) {
  const provider = createOpenAICompatible({ name: "recorded", baseURL: url, apiKey: "k", includeUsage: true });
  const model = wrapLanguageModel({ model: provider.chatModel("m-1"), middleware: relaytraceMiddleware({ runtime }) });
  const tools = traceTools(
    {
      get_weather: tool({
        description: "Current weather for a city",
        inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        execute,
      }),
    },
    { runtime },
  );
  return { model, tools };
}

async function record(): Promise<{ events: AtofEvent[]; text: string; calls: number }> {
  const scripted = await startScriptedProvider({ turns: WEATHER_TURNS });
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  let calls = 0;
  const { model, tools } = weatherProgram(scripted.url, runtime, async ({ city }) => {
    calls++;
    return { city, temp_c: 4 };
  });
  const result = await generateText({ model, tools, stopWhen: stepCountIs(3), system: "Be brief.", prompt: "Weather in Oslo?" });
  await runtime.flush();
  await scripted.close();
  return { events, text: result.text, calls };
}

describe("replaying an AI SDK run", () => {
  it("answers the same generateText and streamText program strictly, with the recorded tool results", async () => {
    const recorded = await record();
    expect(recorded.calls).toBe(1);
    const [replayed] = replayTools(recorded.events);
    for (const streaming of [false, true]) {
      const server = await replay({ events: recorded.events });
      const runtime = createRuntime();
      const { model, tools } = weatherProgram(server.url, runtime, async (input) => JSON.parse((await replayed!.execute(input)).output));
      const options = { model, tools, stopWhen: stepCountIs(3), system: "Be brief.", prompt: "Weather in Oslo?", maxRetries: 0 };
      const text = streaming ? await streamText(options).text : (await generateText(options)).text;
      expect(text).toBe(recorded.text);
      expect(server.mismatches).toEqual([]);
      expect(server.served).toBe(2);
    }
  });
});
