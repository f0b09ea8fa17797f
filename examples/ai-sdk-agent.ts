// A Vercel AI SDK (`ai` 6.x) agent traced by relaytrace: `relaytraceMiddleware` turns each model
// call into an `llm` scope, `traceTools` runs each tool through the runtime (so the guardrail
// below refuses a call and the model hears why), and `traceAgent` makes the multi-step run one
// `agent` scope. The model is the scripted OpenAI-compatible server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { createRuntime, type AtofEvent } from "relaytrace";
import { relaytraceMiddleware, traceAgent, traceTools } from "relaytrace/ai-sdk";
import { EventCapture, SpanCapture, startScriptedProvider, toTree } from "relaytrace/testing";

export interface AiSdkExampleResult {
  text: string;
  events: AtofEvent[];
  tree: string;
}

export async function main(): Promise<AiSdkExampleResult> {
  const server = await startScriptedProvider({
    model: "gpt-4.1-mini",
    turns: [
      {
        toolCalls: [
          { id: "call_1", name: "get_weather", arguments: { city: "Oslo" } },
          { id: "call_2", name: "get_weather", arguments: { city: "Atlantis" } },
        ],
        usage: { promptTokens: 52, completionTokens: 18, cachedTokens: 32 },
      },
      { text: "Oslo: 4 °C and rain. Atlantis is not a city I can look up." },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const spans = new SpanCapture({ projection: "openinference" });
  spans.register(runtime);
  runtime.registerToolConditionalGuardrail("known-cities", 0, (_tool, args) =>
    (args as { city?: string }).city === "Atlantis" ? "unknown city: Atlantis" : null,
  );

  const provider = createOpenAICompatible({ name: "openai", baseURL: server.url, apiKey: "sk-example" });
  const model = wrapLanguageModel({ model: provider.chatModel("gpt-4.1-mini"), middleware: relaytraceMiddleware({ runtime }) });
  const tools = traceTools(
    {
      get_weather: tool({
        description: "Current weather of a city",
        inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        execute: async ({ city }) => ({ city, temp_c: 4, sky: "rain" }),
      }),
    },
    { runtime },
  );

  try {
    const result = await traceAgent(
      "weather-agent",
      () => generateText({ model, tools, stopWhen: stepCountIs(5), prompt: "Weather in Oslo and Atlantis?" }),
      {
        runtime,
      },
    );
    await runtime.flush();
    const tree = toTree(await spans.spans());
    console.log(result.text);
    console.log(tree);
    return { text: result.text, events: capture.events, tree };
  } finally {
    await runtime.shutdown();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
