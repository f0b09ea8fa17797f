// An app that calls the OpenAI SDK (`openai` 7) itself, traced by one line: `traceOpenAI(client)`.
// A JSON chat call and a streamed one, inside the app's own agent scope, become two llm scopes
// with their requests, replies, usage and cost; the app still gets the SDK's own objects. The
// model is the scripted OpenAI-compatible server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import OpenAI from "openai";
import { createRuntime, type AtofEvent } from "relaytrace";
import { traceOpenAI } from "relaytrace/openai";
import { EventCapture, SpanCapture, startScriptedProvider, toTree } from "relaytrace/testing";

export interface OpenAIClientExampleResult {
  answer: string;
  streamed: string;
  events: AtofEvent[];
  tree: string;
}

export async function main(): Promise<OpenAIClientExampleResult> {
  const server = await startScriptedProvider({
    model: "gpt-4.1-mini",
    turns: [
      { text: "Oslo is the capital of Norway.", usage: { promptTokens: 24, completionTokens: 8 } },
      { text: "Bergen is known for its rain.", usage: { promptTokens: 40, completionTokens: 9 } },
    ],
  });
  // A price list makes each call's cost part of its llm end.
  const runtime = createRuntime({
    pricing: {
      entries: [{ model: "gpt-4.1-mini", inputPerMTok: 0.4, outputPerMTok: 1.6, pricingAsOf: "2026-01-01", pricingSource: "example" }],
    },
  });
  const capture = new EventCapture();
  capture.register(runtime);
  const spans = new SpanCapture({ projection: "gen_ai" });
  spans.register(runtime);

  const openai = traceOpenAI(new OpenAI({ apiKey: "sk-example", baseURL: server.url }), { runtime });
  try {
    const { answer, streamed } = await runtime.withScope(
      "geography-agent",
      async () => {
        const reply = await openai.chat.completions.create({
          model: "gpt-4.1-mini",
          messages: [{ role: "user", content: "What is the capital of Norway?" }],
        });
        // A streamed call: the SDK's Stream, iterated as usual; the trace records it assembled.
        let text = "";
        const stream = await openai.chat.completions.create({
          model: "gpt-4.1-mini",
          messages: [{ role: "user", content: "And Bergen?" }],
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
        return { answer: reply.choices[0]?.message.content ?? "", streamed: text };
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
