// The loop client's `prompt` option: on createClient it names the prompt of every run, on a call
// (run, ask, stream, runWithAnswer, askWithAnswer) that run's; every LLM call of the run carries
// it (ATOF start profile, OpenInference prompt template attributes). A malformed prompt or an
// unknown option is rejected before anything runs. The provider is a real loopback HTTP server.
import { afterEach, describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/index.js";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { openaiReply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const clientPrompt = { name: "support-agent", version: "7", template: "You help {customer}.", variables: { customer: "Ada" } };
const runPrompt = { name: "refund-flow", version: "2" };

const lookup = defineTool({
  name: "lookup",
  description: "Looks an order up",
  parameters: { type: "object", properties: {} },
  execute: () => "shipped",
});

async function setup(replies: Parameters<typeof startProvider>[0]) {
  const srv = await startProvider(replies);
  closers.push(srv.close);
  const runtime: Runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const spans = new SpanCapture({ projection: "openinference" });
  spans.register(runtime);
  return { srv, runtime, events, spans };
}

function llmStarts(events: AtofEvent[]): ScopeEvent[] {
  return events.filter((e): e is ScopeEvent => e.kind === "scope" && e.category === "llm" && e.scope_category === "start");
}

describe("the loop client's prompt option", () => {
  it("createClient's prompt is on every LLM call of a run, tool turns included, and in OpenInference", async () => {
    const { srv, runtime, events, spans } = await setup([openaiReply(null, [{ id: "c1", name: "lookup" }]), openaiReply("It shipped.")]);
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime, prompt: clientPrompt });
    const result = await client.run("Where is my order?", { toolkit: await createToolkit({ tools: [lookup] }) });
    expect(result.text).toBe("It shipped.");
    await runtime.flush();
    const starts = llmStarts(events);
    expect(starts).toHaveLength(2);
    for (const start of starts) expect(start.category_profile?.["prompt"]).toEqual(clientPrompt);
    const llmSpans = (await spans.spans()).filter((s) => s.attributes["openinference.span.kind"] === "LLM");
    expect(llmSpans).toHaveLength(2);
    for (const span of llmSpans) {
      expect(span.attributes["llm.prompt_template.template"]).toBe("You help {customer}.");
      expect(span.attributes["llm.prompt_template.variables"]).toBe('{"customer":"Ada"}');
      expect(span.attributes["llm.prompt_template.version"]).toBe("7");
    }
    await runtime.shutdown();
  });

  it("a run's own prompt wins over the client's, on run, ask and stream; runs without one keep the client's", async () => {
    const { srv, runtime, events } = await setup([openaiReply("a"), openaiReply("b"), openaiReply("c"), openaiReply("d")]);
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime, prompt: clientPrompt });
    await client.run("one", { prompt: runPrompt });
    await client.ask("two", { id: "conv-1", prompt: runPrompt });
    await client.run("three");
    const plain = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime });
    await plain.run("four");
    await runtime.flush();
    const prompts = llmStarts(events).map((s) => s.category_profile?.["prompt"]);
    expect(prompts).toEqual([runPrompt, runPrompt, clientPrompt, undefined]);
    await runtime.shutdown();
  });

  it("a streamed run carries its prompt", async () => {
    const sse =
      `data: ${JSON.stringify({ model: "stub", choices: [{ index: 0, delta: { role: "assistant", content: "hi" } }] })}\n\n` +
      `data: ${JSON.stringify({ model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n` +
      "data: [DONE]\n\n";
    const { srv, runtime, events } = await setup([{ sse }]);
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime });
    for await (const ev of client.stream("hello", { prompt: runPrompt })) void ev;
    await runtime.flush();
    const [start] = llmStarts(events);
    expect(start!.attributes).toContain("streaming");
    expect(start!.category_profile?.["prompt"]).toEqual(runPrompt);
    await runtime.shutdown();
  });

  it("rejects a malformed prompt, naming the field, and still rejects unknown options, before any request", async () => {
    const { srv, runtime } = await setup([]);
    const base = { baseUrl: srv.url, style: "openai" as const, model: "stub", apiKey: "k", runtime };
    expect(() => createClient({ ...base, prompt: { name: "" } })).toThrow(/prompt\.name must be a non-empty string/);
    expect(() => createClient({ ...base, prompt: { name: "x", tempalte: "t" } as never })).toThrow(/tempalte/);
    const client = createClient(base);
    await expect(client.run("x", { prompt: { name: "p", variables: [1] } as never })).rejects.toThrow(
      /prompt\.variables must be a JSON object/,
    );
    await expect(client.ask("x", { prompt: { name: "p", version: 3 } as never })).rejects.toThrow(/prompt\.version/);
    await expect(client.run("x", { promt: runPrompt } as never)).rejects.toThrow(/promt.*prompt/s);
    expect(srv.requests).toHaveLength(0);
    await runtime.shutdown();
  });
});
