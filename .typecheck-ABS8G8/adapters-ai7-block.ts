import { createOpenAICompatible } from "openai-compatible7";
import { generateText, jsonSchema, registerTelemetry, stepCountIs, tool } from "ai7";
import { createRuntime } from "relaytrace";
import { relaytraceTelemetry } from "relaytrace/ai-sdk";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

const server = await startScriptedProvider({
  turns: [{ toolCalls: [{ id: "call_1", name: "add", arguments: { a: 3, b: 4 } }] }, { text: "3 + 4 = 7" }],
});
const runtime = createRuntime();
const capture = new EventCapture();
capture.register(runtime);
registerTelemetry(relaytraceTelemetry({ runtime }));

const openai = createOpenAICompatible({ name: "openai", baseURL: server.url, apiKey: "sk-demo" });
const add = tool({
  description: "Add two numbers",
  inputSchema: jsonSchema<{ a: number; b: number }>({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } }),
  execute: async ({ a, b }) => a + b,
});
const result = await generateText({ model: openai.chatModel("gpt-4.1-mini"), tools: { add }, stopWhen: stepCountIs(3), prompt: "What is 3 + 4?" });
await runtime.flush();
console.log(result.text); // 3 + 4 = 7
console.log(capture.events.filter((e) => e.kind === "scope" && e.scope_category === "start").map((e) => `${e.category} ${e.name}`).join(" · "));
// agent ai.generateText · llm openai.chat · tool add · llm openai.chat
await runtime.shutdown();
await server.close();
