// A LangChain.js tool loop (`@langchain/core` 1.x, `@langchain/openai` ChatOpenAI) traced by
// relaytrace: `RelaytraceCallbackHandler` turns the chain, chat-model and tool runs into agent,
// llm and tool scopes, nested by LangChain's run ids. The model is the scripted
// OpenAI-compatible server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import { HumanMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { createRuntime, type AtofEvent } from "relaytrace";
import { RelaytraceCallbackHandler } from "relaytrace/langchain";
import { EventCapture, SpanCapture, startScriptedProvider, toTree } from "relaytrace/testing";

export interface LangChainExampleResult {
  answer: unknown;
  events: AtofEvent[];
  tree: string;
}

export async function main(): Promise<LangChainExampleResult> {
  const server = await startScriptedProvider({
    model: "gpt-4.1-mini",
    turns: [
      {
        toolCalls: [{ id: "call_1", name: "convert_currency", arguments: { amount: 20, from: "EUR", to: "NOK" } }],
        usage: { promptTokens: 45, completionTokens: 15 },
      },
      { text: "20 EUR is about 235 NOK." },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const spans = new SpanCapture({ projection: "gen_ai" });
  spans.register(runtime);

  const convert = tool(async ({ amount }: { amount: number; from: string; to: string }) => String(Math.round(amount * 11.75)), {
    name: "convert_currency",
    description: "Convert an amount between currencies",
    schema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
  });
  const model = new ChatOpenAI({ model: "gpt-4.1-mini", apiKey: "sk-example", configuration: { baseURL: server.url } }).bindTools([
    convert,
  ]);
  const agent = RunnableLambda.from(async (question: string, config?: RunnableConfig) => {
    const messages: BaseMessage[] = [new HumanMessage(question)];
    for (;;) {
      const reply = (await model.invoke(messages, config)) as AIMessage;
      messages.push(reply);
      if (!reply.tool_calls?.length) return reply.content;
      for (const call of reply.tool_calls) messages.push(await convert.invoke({ ...call, type: "tool_call" }, config));
    }
  }).withConfig({ runName: "currency-agent" });

  try {
    const answer = await agent.invoke("How much is 20 EUR in NOK?", { callbacks: [new RelaytraceCallbackHandler({ runtime })] });
    await runtime.flush();
    const tree = toTree(await spans.spans());
    console.log(answer);
    console.log(tree);
    return { answer, events: capture.events, tree };
  } finally {
    await runtime.shutdown();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
