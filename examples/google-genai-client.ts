// An app that calls the Google Gen AI SDK (`@google/genai` 3) itself, traced by one line:
// `traceGoogleGenAI(ai)`. A `generateContent` call with a callable tool makes the SDK run automatic
// function calling: two model requests, two llm scopes, each with its own usage. A
// `generateContentStream` call is recorded assembled. The model is the scripted Gemini server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import { GoogleGenAI, type CallableTool } from "@google/genai";
import { createRuntime, type AtofEvent } from "relaytrace";
import { traceGoogleGenAI } from "relaytrace/google-genai";
import { EventCapture, SpanCapture, startScriptedProvider, toTree } from "relaytrace/testing";

export interface GoogleGenAIClientExampleResult {
  answer: string;
  streamed: string;
  events: AtofEvent[];
  tree: string;
}

/** A tool the SDK calls by itself when the model asks for it. */
const stationTemperature: CallableTool = {
  tool: async () => ({
    functionDeclarations: [
      { name: "station_temperature", description: "Temperature at a station", parametersJsonSchema: { type: "object" } },
    ],
  }),
  callTool: async (calls) => calls.map((c) => ({ functionResponse: { id: c.id ?? "", name: c.name ?? "", response: { output: "4 °C" } } })),
};

export async function main(): Promise<GoogleGenAIClientExampleResult> {
  const server = await startScriptedProvider({
    style: "gemini",
    model: "gemini-2.5-flash",
    turns: [
      {
        toolCalls: [{ id: "fc_1", name: "station_temperature", arguments: { station: "Blindern" } }],
        usage: { promptTokens: 30, completionTokens: 6 },
      },
      { text: "It is 4 °C at Blindern.", usage: { promptTokens: 52, completionTokens: 9 } },
      { text: "Dress warmly." },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const spans = new SpanCapture({ projection: "gen_ai" });
  spans.register(runtime);

  const ai = traceGoogleGenAI(new GoogleGenAI({ apiKey: "example-key", httpOptions: { baseUrl: server.url } }), { runtime });
  try {
    const { answer, streamed } = await runtime.withScope(
      "weather-agent",
      async () => {
        const response = await ai.models.generateContent({
          model: "gemini-2.5-flash",
          contents: "How warm is it at Blindern?",
          config: { tools: [stationTemperature] },
        });
        let text = "";
        for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "Any advice?" }))
          text += chunk.text ?? "";
        return { answer: response.text ?? "", streamed: text };
      },
      { category: "agent" },
    );
    await runtime.flush();
    const tree = toTree(await spans.spans());
    console.log(answer);
    console.log(streamed);
    console.log(tree);
    return { answer, streamed, events: capture.events, tree };
  } finally {
    await runtime.shutdown();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
