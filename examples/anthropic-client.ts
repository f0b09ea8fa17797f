// An app that calls the Anthropic SDK (`@anthropic-ai/sdk` 1) itself, traced by one line:
// `traceAnthropic(client)`. A `messages.create` call and a `messages.stream(...)` helper call (which
// calls `messages.create` itself: one scope, not two) become llm scopes under the app's scope. The
// model is the scripted Anthropic Messages server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { createRuntime, type AtofEvent } from "relaytrace";
import { traceAnthropic } from "relaytrace/anthropic";
import { EventCapture, SpanCapture, startScriptedProvider, toTree } from "relaytrace/testing";

export interface AnthropicClientExampleResult {
  summary: string;
  translated: string;
  events: AtofEvent[];
  tree: string;
}

export async function main(): Promise<AnthropicClientExampleResult> {
  const server = await startScriptedProvider({
    style: "anthropic",
    model: "claude-sonnet-4-5",
    turns: [{ text: "A short note about tides." }, { text: "Une courte note sur les marées." }],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const spans = new SpanCapture({ projection: "gen_ai" });
  spans.register(runtime);

  const anthropic = traceAnthropic(new Anthropic({ apiKey: "sk-ant-example", baseURL: server.url }), { runtime });
  try {
    const { summary, translated } = await runtime.withScope(
      "notes-agent",
      async () => {
        const message = await anthropic.messages.create({
          model: "claude-sonnet-4-5",
          max_tokens: 256,
          system: "You write one-line notes.",
          messages: [{ role: "user", content: "Summarise: tides are caused by the moon." }],
        });
        const stream = anthropic.messages.stream({
          model: "claude-sonnet-4-5",
          max_tokens: 256,
          messages: [{ role: "user", content: "Translate the note into French." }],
        });
        const final = await stream.finalMessage();
        const text = (m: Anthropic.Message) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
        return { summary: text(message), translated: text(final) };
      },
      { category: "agent" },
    );
    await runtime.flush();
    const tree = toTree(await spans.spans());
    console.log(summary);
    console.log(translated);
    console.log(tree);
    return { summary, translated, events: capture.events, tree };
  } finally {
    await runtime.shutdown();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
