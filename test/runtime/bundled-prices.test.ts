import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import type { Json } from "../../src/events/json.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { RuntimeOptions } from "../../src/runtime/types.js";
import { codecForDialect, type Dialect } from "../../src/wire/index.js";
import { startProvider, type ScriptedReply } from "../support/agent-provider-server.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { anthropicMessage, chatCompletion, geminiContent } from "../support/dialect-replies.js";
import { wireFixture } from "../support/wire-fixtures.js";

// With no `pricing` option every call whose model and usage are known is priced from the bundled
// @pydantic/genai-prices table. The expected figures are the providers' published list prices
// (USD per million tokens) worked by hand in the comments, not read back from the table.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

interface Cost {
  total: number;
  currency: string;
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  model: string;
  provider?: string;
  pricing_source?: string;
  pricing_as_of?: string;
}

function llmEnds(events: AtofEvent[]): ScopeEvent[] {
  return scopes(events).filter((e) => e.category === "llm" && e.scope_category === "end");
}

function costOf(end: ScopeEvent | undefined): Cost | undefined {
  return (end?.category_profile as { cost?: Cost } | null)?.cost;
}

/** One agent run through the loop against a loopback server answering `replies` in `style`'s wire. */
async function run(style: Dialect, model: string, replies: ScriptedReply[], options: RuntimeOptions = {}) {
  const server = await startProvider(replies);
  closers.push(server.close);
  const { rt, settle } = capturingRuntime(options);
  closers.push(() => rt.shutdown());
  const client = createClient({ baseUrl: server.url, style, model, apiKey: "sk-test", runtime: rt });
  await client.run("What is the capital of France?", { toolkit: await createToolkit({ tools: [] }) });
  const events = await settle();
  return { events, ends: llmEnds(events), diagnostics: rt.diagnostics() };
}

describe("with no pricing option, the bundled table prices every call whose model and usage are known", () => {
  it("OpenAI Chat Completions: a dated snapshot, its cached prompt tokens at the cache rate", async () => {
    // gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million tokens.
    // 2,000 prompt tokens of which 1,200 cached, 300 completion tokens:
    // 800 × 0.15 + 1,200 × 0.075 = $0.00021 input; 300 × 0.60 = $0.00018 output; $0.00039 in all.
    const { ends, diagnostics } = await run("openai", "gpt-4o-mini", [
      chatCompletion("gpt-4o-mini-2024-07-18", { prompt: 2000, completion: 300, cached: 1200 }),
    ]);
    expect(costOf(ends[0])).toEqual({
      total: 0.00039,
      currency: "USD",
      input: 0.00021,
      output: 0.00018,
      cache_read: 0.00009,
      model: "gpt-4o-mini",
      provider: "openai",
      pricing_source: expect.stringMatching(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/),
    });
    expect(diagnostics).toEqual([]);
  });

  it("Anthropic Messages: cache writes and cache reads each at their own rate", async () => {
    // claude-sonnet-4-5: $3 input, $3.75 cache write, $0.30 cache read, $15 output.
    // 1,000 uncached + 2,000 written + 5,000 read = 8,000 input tokens:
    // 0.003 + 0.0075 + 0.0015 = $0.012 input; 400 × 15 = $0.006 output; $0.018 in all.
    const { ends } = await run("anthropic", "claude-sonnet-4-5", [
      anthropicMessage("claude-sonnet-4-5-20250929", { input: 1000, cacheWrite: 2000, cacheRead: 5000, output: 400 }),
    ]);
    expect(costOf(ends[0])).toMatchObject({
      total: 0.018,
      input: 0.012,
      output: 0.006,
      cache_write: 0.0075,
      cache_read: 0.0015,
      model: "claude-sonnet-4-5",
      provider: "anthropic",
    });
  });

  it("Gemini: cached content at the cache rate, thinking tokens as output", async () => {
    // gemini-2.5-flash: $0.30 input, $0.03 cached, $2.50 output.
    // 1,000 prompt tokens of which 400 cached: 600 × 0.30 + 400 × 0.03 = $0.000192;
    // 100 candidate + 50 thinking tokens = 150 × 2.50 = $0.000375; $0.000567 in all.
    const { ends } = await run("gemini", "gemini-2.5-flash", [
      geminiContent("gemini-2.5-flash", { prompt: 1000, cached: 400, candidates: 100, thoughts: 50 }),
    ]);
    expect(costOf(ends[0])).toMatchObject({ total: 0.000567, input: 0.000192, output: 0.000375, cache_read: 0.000012, provider: "google" });
  });

  it("a tiered price: past 200,000 prompt tokens every token is charged at the higher tier", async () => {
    // gemini-2.5-pro above 200k input: $2.50 input, $0.25 cached, $15 output.
    // 250,000 prompt tokens of which 50,000 cached: 200,000 × 2.50 + 50,000 × 0.25 = $0.5125;
    // 1,200 output tokens × 15 = $0.018; $0.5305 in all (at the base tier it would be $0.265).
    const { ends } = await run("gemini", "gemini-2.5-pro", [
      geminiContent("gemini-2.5-pro", { prompt: 250_000, cached: 50_000, candidates: 1000, thoughts: 200 }),
    ]);
    expect(costOf(ends[0])).toMatchObject({ total: 0.5305, input: 0.5125, output: 0.018, cache_read: 0.0125 });
  });

  it("a price that changed on a date applies by when the call was made", async () => {
    // o3 cost $10 / $40 until 2025-06-10, then $2 / $8: 1,000 input and 1,000 output tokens.
    const reply = chatCompletion("o3-2025-04-16", { prompt: 1000, completion: 1000 });
    const at = (iso: string) => ({ clock: { nowUs: () => Date.parse(iso) * 1000 } });
    const before = await run("openai", "o3", [reply], at("2025-05-01T12:00:00Z"));
    const after = await run("openai", "o3", [reply], at("2025-07-01T12:00:00Z"));
    expect(costOf(before.ends[0])?.total).toBe(0.05);
    expect(costOf(after.ends[0])?.total).toBe(0.01);
  });

  it("a provider-qualified model name is priced at that provider's prices, whichever wire it came over", async () => {
    // A gateway speaking Chat Completions: claude-sonnet-4-5 at $3 / $15, gpt-4o-mini at $0.15 / $0.60.
    const slash = await run("openai", "anthropic/claude-sonnet-4-5", [
      chatCompletion("anthropic/claude-sonnet-4-5", { prompt: 1000, completion: 100 }),
    ]);
    expect(costOf(slash.ends[0])).toMatchObject({ total: 0.0045, model: "claude-sonnet-4-5", provider: "anthropic" });
    const colon = await run("openai", "openai:gpt-4o-mini", [chatCompletion("openai:gpt-4o-mini", { prompt: 1000, completion: 100 })]);
    expect(costOf(colon.ends[0])).toMatchObject({ total: 0.00021, model: "gpt-4o-mini", provider: "openai" });
  });

  it("the host a call went to picks the provider: an open model is priced at that host's rates", async () => {
    // llama-3.3-70b-versatile on Groq: $0.59 input, $0.79 output. 10,000 in, 1,000 out = $0.00669.
    const server = await startProvider([chatCompletion("llama-3.3-70b-versatile", { prompt: 10_000, completion: 1000 })]);
    closers.push(server.close);
    const { rt, settle } = capturingRuntime();
    const body = { model: "llama-3.3-70b-versatile", messages: [{ role: "user", content: "hi" }] };
    await rt.executeLlm(
      "openai.chat.completions",
      { content: body },
      async (request) =>
        (await (
          await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(request.content) })
        ).json()) as Json,
      { modelName: "llama-3.3-70b-versatile", metadata: { server_address: "api.groq.com" } },
    );
    expect(costOf(llmEnds(await settle())[0])).toMatchObject({ total: 0.00669, provider: "groq" });
    await rt.shutdown();
  });

  it("an unknown model has no cost, never a guessed one, and is counted as llm.unpriced_model", async () => {
    // The table prices llama-3.3-70b-versatile at Groq, but a call to a self-hosted server over
    // the OpenAI wire is not Groq's: no cost rather than someone else's price.
    const own = await run("openai", "llama-3.3-70b-versatile", [
      chatCompletion("llama-3.3-70b-versatile", { prompt: 1000, completion: 100 }),
    ]);
    expect(costOf(own.ends[0])).toBeUndefined();
    const made = await run("openai", "acme-llm-1", [chatCompletion("acme-llm-1", { prompt: 1000, completion: 100 })]);
    expect(costOf(made.ends[0])).toBeUndefined();
    expect(made.diagnostics).toEqual([
      { code: "llm.unpriced_model", message: "no price for model acme-llm-1 in the bundled price table; the call has no cost", count: 1 },
    ]);
    // The agent's end still counts the call: its usage, and no total_cost rather than a total of 0.
    const agentEnd = scopes(made.events).find((e) => e.category === "agent" && e.scope_category === "end")!;
    expect(agentEnd.category_profile).toEqual({
      total_usage: { input_tokens: 1000, output_tokens: 100, cache_read_tokens: 0, reasoning_tokens: 0, calls: 1 },
    });
  });

  it("a streamed call is priced from the reply its chunks assemble to", async () => {
    // A recorded gpt-4.1 stream: 140 prompt tokens of which 40 cached, 12 completion tokens, at
    // $2 input, $0.50 cached, $8 output: 100 × 2 + 40 × 0.5 = $0.00022; 12 × 8 = $0.000096.
    const fixture = wireFixture("openai");
    const codec = codecForDialect("openai");
    const server = await startProvider([{ sse: fixture.stream.map((e) => `data: ${e.data}\n\n`).join("") }]);
    closers.push(server.close);
    const { rt, settle } = capturingRuntime();
    const stream = rt.executeLlmStream(
      codec.eventName,
      { content: { model: "gpt-4.1", stream: true, messages: [] } },
      async function* () {
        const response = await fetch(server.url, { method: "POST", body: "{}" });
        for await (const piece of response.body!) yield piece as Uint8Array;
      },
      { dataSchema: codec.schema, modelName: "gpt-4.1" },
    );
    for await (const chunk of stream) void chunk;
    expect(costOf(llmEnds(await settle())[0])).toMatchObject({ total: 0.000316, input: 0.00022, output: 0.000096, model: "gpt-4.1" });
    await rt.shutdown();
  });

  it("a model name no model id could be (100,000 characters) is not looked up, and the diagnostic quotes only its start", async () => {
    const huge = "x".repeat(100_000);
    const { ends, diagnostics } = await run("openai", huge, [chatCompletion(huge, { prompt: 10, completion: 1 })]);
    expect(costOf(ends[0])).toBeUndefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.code).toBe("llm.unpriced_model");
    expect(diagnostics[0]!.message.length).toBeLessThan(200);
  });

  it("a cost the reply reports itself (a gateway's usage.cost) wins over the table's", async () => {
    const { ends } = await run("openai", "openai/gpt-4o-mini", [
      chatCompletion("openai/gpt-4o-mini", { prompt: 1000, completion: 100, cost: 0.0003 }),
    ]);
    expect(costOf(ends[0])).toEqual({ total: 0.0003, currency: "USD", model: "openai/gpt-4o-mini", pricing_source: "provider" });
  });
});

describe("the pricing option", () => {
  it("the app's entries override the table for their models; pricingAsOf and pricingSource are optional", async () => {
    const server = await startProvider([
      chatCompletion("gpt-4o-mini-2024-07-18", { prompt: 1_000_000, completion: 100_000 }),
      anthropicMessage("claude-sonnet-4-5-20250929", { input: 1000, output: 100 }),
    ]);
    closers.push(server.close);
    // A negotiated rate for gpt-4o-mini: $0.10 / $0.40. claude-sonnet-4-5 is left to the table ($3 / $15).
    const { rt, settle } = capturingRuntime({ pricing: { entries: [{ model: "gpt-4o-mini", inputPerMTok: 0.1, outputPerMTok: 0.4 }] } });
    const toolkit = await createToolkit({ tools: [] });
    await createClient({ baseUrl: server.url, style: "openai", model: "gpt-4o-mini", apiKey: "k", runtime: rt }).run("a", { toolkit });
    await createClient({ baseUrl: server.url, style: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", runtime: rt }).run("b", {
      toolkit,
    });
    const [ours, table] = llmEnds(await settle()).map(costOf);
    // 1,000,000 × 0.10 + 100,000 × 0.40 = $0.14, not the table's $0.21.
    expect(ours).toEqual({ total: 0.14, currency: "USD", input: 0.1, output: 0.04, cache_read: 0, model: "gpt-4o-mini" });
    expect(table).toMatchObject({ total: 0.0045, provider: "anthropic" });
    await rt.shutdown();
  });

  it("pricing: false turns cost off: no cost, no totals, no diagnostic", async () => {
    const { events, ends, diagnostics } = await run(
      "openai",
      "gpt-4o-mini",
      [chatCompletion("gpt-4o-mini", { prompt: 1000, completion: 100 })],
      {
        pricing: false,
      },
    );
    expect(ends[0]!.category_profile).toEqual({ model_name: "gpt-4o-mini" });
    expect(scopes(events).find((e) => e.category === "agent" && e.scope_category === "end")!.category_profile).toBeNull();
    expect(diagnostics).toEqual([]);
  });

  it("anything but a catalog, a file path or false is refused naming the option", () => {
    expect(() => createRuntime({ pricing: true } as never)).toThrow(TypeError);
    expect(() => createRuntime({ pricing: true } as never)).toThrow(/pricing.*false.*got true/);
  });
});
