import { afterEach } from "vitest";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { Dialect } from "../../src/wire/index.js";
import { startScriptedProvider, type ScriptedTurn } from "../../exporters/testing/scripted-provider.js";
import { startReplayServer, type ReplayServer, type ReplayServerOptions } from "../../src/replay/index.js";
import { capturingRuntime } from "./capture.js";

/** A tool with a side effect a replay must never trigger: it counts its calls. */
export function weatherTool(calls: { count: number }, temp = 4) {
  return defineTool({
    name: "get_weather",
    description: "Current weather for a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => {
      calls.count++;
      return JSON.stringify({ city, temp_c: temp });
    },
  });
}

export const WEATHER_TURNS: ScriptedTurn[] = [
  { toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }], usage: { promptTokens: 50, completionTokens: 9 } },
  { text: "Oslo: 4 °C.", usage: { promptTokens: 70, completionTokens: 5 } },
];

/** Records a real loop run against the scripted provider: the events an ATOF file would hold. */
export async function recordRun(
  style: Dialect,
  prompt = "Weather in Oslo?",
  turns: ScriptedTurn[] = WEATHER_TURNS,
  options: { stream?: boolean; temp?: number; retries?: number } = {},
): Promise<{ events: AtofEvent[]; text: string }> {
  const provider = await startScriptedProvider({ style, turns });
  try {
    const { rt, settle } = capturingRuntime();
    const client = createClient({
      baseUrl: provider.url,
      style,
      model: "m-1",
      apiKey: "k",
      systemPrompt: "Be brief.",
      runtime: rt,
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
    });
    const toolkit = await createToolkit({ tools: [weatherTool({ count: 0 }, options.temp)] });
    const run = client.run(prompt, options.stream ? { toolkit, onText: () => undefined } : { toolkit });
    const result = await run.catch(() => undefined);
    return { events: [...(await settle())], text: result?.text ?? "" };
  } finally {
    await provider.close();
  }
}

/** Starts replay servers for one test file and closes them after each test. */
export function replayServers(): (options: ReplayServerOptions) => Promise<ReplayServer> {
  const open: ReplayServer[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async (options) => {
    const server = await startReplayServer(options);
    open.push(server);
    return server;
  };
}
