// relaytraceTelemetry with the real `ai` 7 (installed as the npm alias `ai7`, beside the `ai` 6 the
// other AI SDK tests use) against model servers on 127.0.0.1: a scripted OpenAI-compatible one,
// and for cancellation one that sends the first chunks of a stream and holds it open.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  experimental_streamTextLowMemory,
  generateText,
  isStepCount,
  jsonSchema,
  registerTelemetry,
  streamText,
  tool,
  ToolLoopAgent,
} from "ai7";
import { createOpenAICompatible } from "openai-compatible7";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Runtime, ScopeEvent } from "relaytrace";
import { relaytraceTelemetry } from "relaytrace/ai-sdk";
import { startScriptedProvider, type ScriptedProvider, type ScriptedTurn } from "relaytrace/testing";
import { blocksOf } from "../support/doc-blocks.js";
import { typeCheck } from "../support/type-check.js";
import { ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let provider: ScriptedProvider | undefined;
let held: Server | undefined;
afterEach(async () => {
  // registerTelemetry adds to a process-wide list: each test starts without integrations
  delete (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS;
  await provider?.close();
  provider = undefined;
  if (held) {
    held.closeAllConnections();
    await new Promise<void>((resolve) => held!.close(() => resolve()));
    held = undefined;
  }
});

const TURNS: ScriptedTurn[] = [
  {
    toolCalls: [
      { id: "call_w", name: "get_weather", arguments: { town: "Oslo" } },
      { id: "call_t", name: "get_time", arguments: { zone: "CET" } },
    ],
    usage: { promptTokens: 40, completionTokens: 12, cachedTokens: 16 },
  },
  { text: "It is 4 °C in Oslo at noon.", usage: { promptTokens: 70, completionTokens: 14 } },
];

function modelAt(url: string) {
  return createOpenAICompatible({ name: "scripted", baseURL: url, apiKey: "sk-test-key", includeUsage: true }).chatModel("gpt-4.1-mini");
}

function weatherTools() {
  return {
    get_weather: tool({
      description: "Current weather of a town",
      inputSchema: jsonSchema<{ town: string }>({ type: "object", properties: { town: { type: "string" } }, required: ["town"] }),
      execute: async () => ({ temp_c: 4 }),
    }),
    get_time: tool({
      description: "Current time in a zone",
      inputSchema: jsonSchema<{ zone: string }>({ type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }),
      execute: async () => "12:00",
    }),
  };
}

/** The first end event of a scope of `category`, as it is published (no waiting on time). */
function scopeEnd(runtime: Runtime, category: string): Promise<ScopeEvent> {
  return new Promise((resolve) => {
    const off = runtime.subscribe(`wait-${category}`, (e) => {
      if (e.kind === "scope" && e.scope_category === "end" && e.category === category) {
        off();
        resolve(e);
      }
    });
  });
}

/** Scope events as `start llm`, `end tool`, … in publication order. */
const sequence = (events: ReturnType<typeof scopesOf>) => events.map((e) => `${e.scope_category} ${e.category}`);

/**
 * A server that answers a streamed request with these server-sent events, then holds the stream
 * open (or ends it with `end`); `closed` resolves when the client's connection closes.
 */
async function startSse(events: object[], end = false): Promise<{ url: string; closed: Promise<void> }> {
  let closedResolve!: () => void;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  held = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.on("close", () => closedResolve());
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
      if (end) res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => held!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(held.address() as AddressInfo).port}/v1`, closed };
}

const delta = (d: object) => ({ id: "c1", object: "chat.completion.chunk", model: "gpt-4.1-mini", choices: [{ index: 0, delta: d }] });

/** The first chunks of a reply, and then nothing: the stream stays open. */
const startHeldStream = () => startSse([delta({ role: "assistant", content: "" }), delta({ content: "Hello" })]);

/** The `run-ai7` block of docs/adapters.md, importing `ai` 7 and its provider by their aliases here. */
async function ai7DocBlock(): Promise<string> {
  const text = await readFile(join(ROOT, "docs/adapters.md"), "utf8");
  const found = blocksOf("docs/adapters.md", text).filter((b) => b.kind === "run-ai7");
  expect(found).toHaveLength(1);
  return found[0]!.code.replace(/from "ai"/g, 'from "ai7"').replace(/from "@ai-sdk\/openai-compatible"/g, 'from "openai-compatible7"');
}

describe("relaytraceTelemetry with the real ai 7", () => {
  it("registered once: a generateText run is one agent scope with its llm and tool scopes in order, usage and ATIF", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun("gen_ai");
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));

    const result = await run.runtime.withScope("app", () =>
      generateText({
        model: modelAt(provider!.url),
        tools: weatherTools(),
        stopWhen: isStepCount(4),
        system: "Be brief.",
        prompt: "Weather and time in Oslo?",
      }),
    );
    expect(result.text).toBe("It is 4 °C in Oslo at noon.");

    const { events, spans, trajectories } = await run.finish();
    const scopes = scopesOf(events).filter((e) => e.name !== "app");
    expect(sequence(scopes)).toEqual([
      "start agent",
      "start llm",
      "end llm",
      "start tool",
      "start tool",
      "end tool",
      "end tool",
      "start llm",
      "end llm",
      "end agent",
    ]);
    const app = scopesOf(events).find((e) => e.name === "app")!;
    const [agent] = starts(events, "agent");
    expect(agent!.name).toBe("ai.generateText");
    expect(agent!.parent_uuid).toBe(app.uuid);
    expect(agent!.data).toBe("Weather and time in Oslo?");
    for (const e of scopes.filter((s) => s.category !== "agent")) expect(e.parent_uuid).toBe(agent!.uuid);

    // the llm scopes: Chat Completions bodies with the prompt, tools, tool calls, usage and finish reasons
    const [firstStart, secondStart] = starts(events, "llm");
    expect(firstStart!.name).toBe("scripted.chat");
    expect(firstStart!.data_schema).toEqual({ name: "openai/chat-completions", version: "1" });
    const request = firstStart!.data as { content: { model: string; messages: { role: string; content: unknown }[]; tools: unknown[] } };
    expect(request.content.model).toBe("gpt-4.1-mini");
    expect(request.content.messages).toMatchObject([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather and time in Oslo?" },
    ]);
    expect(request.content.tools).toHaveLength(2);
    const second = secondStart!.data as { content: { messages: { role: string; tool_call_id?: string }[] } };
    expect(second.content.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_w", "call_t"]);
    const [firstEnd, secondEnd] = ends(events, "llm");
    expect(firstEnd!.metadata).toMatchObject({ "otel.status_code": "OK" });
    expect(firstEnd!.data).toMatchObject({
      model: "gpt-4.1-mini",
      choices: [
        { finish_reason: "tool_calls", message: { tool_calls: [{ id: "call_w", function: { name: "get_weather" } }, { id: "call_t" }] } },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } },
    });
    expect(secondEnd!.data).toMatchObject({ choices: [{ finish_reason: "stop", message: { content: "It is 4 °C in Oslo at noon." } }] });

    // the tool scopes: arguments, results and the model's call ids
    const toolStarts = starts(events, "tool");
    expect(toolStarts.map((e) => [e.name, e.category_profile?.["tool_call_id"], e.data])).toEqual([
      ["get_weather", "call_w", { town: "Oslo" }],
      ["get_time", "call_t", { zone: "CET" }],
    ]);
    const toolEnds = ends(events, "tool");
    expect(Object.fromEntries(toolEnds.map((e) => [e.name, e.data]))).toEqual({ get_weather: { temp_c: 4 }, get_time: "12:00" });
    for (const e of toolEnds) expect(e.metadata).toMatchObject({ "otel.status_code": "OK" });

    // the agent ends with the answer, the finish reason and the usage of every step
    const agentEnd = ends(events, "agent")[0]!;
    expect(agentEnd.data).toBe("It is 4 °C in Oslo at noon.");
    expect(agentEnd.metadata).toMatchObject({
      "otel.status_code": "OK",
      "ai.finish_reason": "stop",
      "ai.usage.input_tokens": 110,
      "ai.usage.output_tokens": 26,
      "gen_ai.provider.name": "scripted.chat",
    });

    // ATIF: the user step is the user's text; the agent step carries both calls and their results
    expect(trajectories).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(steps[0]!.message).toBe("Weather and time in Oslo?");
    expect(steps[1]!.tool_calls?.map((c) => [c.tool_call_id, c.function_name])).toEqual([
      ["call_w", "get_weather"],
      ["call_t", "get_time"],
    ]);
    expect(steps[1]!.observation?.results.map((r) => r.source_call_id)).toEqual(["call_w", "call_t"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, cached_tokens: 16 });
    expect(steps[2]!.message).toBe("It is 4 °C in Oslo at noon.");

    // gen_ai spans: the chats and tools are children of the agent's span
    const agentSpan = spans.find((s) => s.name === "invoke_agent ai.generateText")!;
    const children = spans.filter((s) => s.name === "chat gpt-4.1-mini" || s.name.startsWith("execute_tool "));
    expect(children).toHaveLength(4);
    for (const s of children) expect(s.parentSpanContext?.spanId).toBe(agentSpan.spanContext().spanId);
  });

  it("a failing model call ends its llm scope and the agent scope with the error; the app sees the SDK's error", async () => {
    provider = await startScriptedProvider({ turns: [{ status: 400, body: { error: { message: "bad request: no such model" } } }] });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    await expect(generateText({ model: modelAt(provider.url), prompt: "hi", maxRetries: 0 })).rejects.toThrow(/no such model/);
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(ends(events, "agent")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(ends(events, "agent")[0]!.metadata)).toContain("no such model");
  });

  it("a tool that throws ends its tool scope with the error while the run goes on", async () => {
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_x", name: "explode", arguments: {} }] }, { text: "The tool failed." }],
    });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const tools = {
      explode: tool({
        inputSchema: jsonSchema<Record<string, never>>({ type: "object", properties: {} }),
        execute: async (): Promise<string> => {
          throw new Error("tool blew up");
        },
      }),
    };
    const result = await generateText({ model: modelAt(provider.url), tools, stopWhen: isStepCount(3), prompt: "Try it" });
    expect(result.text).toBe("The tool failed.");
    const { events } = await run.finish();
    const toolEnd = ends(events, "tool")[0]!;
    expect(toolEnd.category_profile?.["tool_call_id"]).toBe("call_x");
    expect(toolEnd.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(toolEnd.metadata)).toContain("tool blew up");
    expect(ends(events, "agent")[0]!.metadata).toMatchObject({ "otel.status_code": "OK" });
    expect(ends(events, "llm")).toHaveLength(2);
  });

  it("streamText: the agent scope ends when the stream is drained, after its llm and tool scopes", async () => {
    provider = await startScriptedProvider({ turns: TURNS, model: "gpt-4.1-mini" });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const agentEnd = scopeEnd(run.runtime, "agent");
    const result = streamText({ model: modelAt(provider.url), tools: weatherTools(), stopWhen: isStepCount(4), prompt: "Weather?" });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe("It is 4 °C in Oslo at noon.");
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "OK", "ai.operation.id": "ai.streamText" });
    expect(end.data).toBe(text);
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual([
      "start agent",
      "start llm",
      "end llm",
      "start tool",
      "start tool",
      "end tool",
      "end tool",
      "start llm",
      "end llm",
      "end agent",
    ]);
    expect(starts(events, "agent")[0]!.attributes).toContain("streaming");
    for (const s of starts(events, "llm")) expect(s.attributes).toContain("streaming");
    const llmEnd = ends(events, "llm")[0]!;
    expect(typeof (llmEnd.metadata as Record<string, unknown>)["time_to_first_chunk_ms"]).toBe("number");
    expect(llmEnd.data).toMatchObject({ choices: [{ finish_reason: "tool_calls" }], usage: { prompt_tokens: 40 } });
  });

  it("streamText: aborting the run while the model streams ends the llm and agent scopes with the abort", async () => {
    const server = await startHeldStream();
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const agentEnd = scopeEnd(run.runtime, "agent");
    const abort = new AbortController();
    const result = streamText({ model: modelAt(server.url), prompt: "Say hello", abortSignal: abort.signal });
    const parts: string[] = [];
    // The stream ends with an `abort` part; earlier ai 7 releases reject the read with the abort's reason instead.
    const reading = (async () => {
      for await (const part of result.fullStream) {
        parts.push(part.type);
        if (part.type === "text-delta") abort.abort(new Error("user left"));
      }
    })();
    const thrown = await reading.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (thrown === undefined) expect(parts.at(-1)).toBe("abort");
    else expect(thrown).toMatchObject({ message: "user left" });
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(end.metadata)).toContain("user left");
    await server.closed; // the abort reached the model's connection
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });

  // experimental_streamTextLowMemory is not in the earliest ai 7 releases the peer range admits.
  it.runIf(typeof experimental_streamTextLowMemory === "function")(
    "streamText (low-memory result): cancelling the stream the app reads ends the llm and agent scopes",
    async () => {
      const server = await startHeldStream();
      const run = integrationRun();
      registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
      const agentEnd = scopeEnd(run.runtime, "agent");
      const result = experimental_streamTextLowMemory({ model: modelAt(server.url), prompt: "Say hello" });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") break; // the app stops reading: the stream is cancelled
      }
      const end = await agentEnd;
      expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
      await server.closed; // the cancellation reached the model's connection
      const { events } = await run.finish();
      expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
      expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    },
  );

  it("streamText: a model call that fails ends the llm and agent scopes with the error", async () => {
    provider = await startScriptedProvider({ turns: [{ status: 400, body: { error: { message: "bad request: no such model" } } }] });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const agentEnd = scopeEnd(run.runtime, "agent");
    const errors: unknown[] = [];
    const result = streamText({
      model: modelAt(provider.url),
      prompt: "hi",
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    expect(JSON.stringify(end.metadata)).toContain("no such model");
    expect(errors).toHaveLength(1);
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });

  it("streamText: a provider's error chunk ends the llm and agent scopes with ERROR", async () => {
    const server = await startSse(
      [delta({ role: "assistant", content: "" }), delta({ content: "Hel" }), { error: { message: "overloaded" } }],
      true,
    );
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const agentEnd = scopeEnd(run.runtime, "agent");
    const errors: unknown[] = [];
    const result = streamText({ model: modelAt(server.url), prompt: "hi", onError: ({ error }) => void errors.push(error) });
    await result.consumeStream();
    const end = await agentEnd;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR", "ai.finish_reason": "error" });
    expect(errors).toHaveLength(1);
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
    expect(ends(events, "llm")[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });

  it("two concurrent runs stay separate: each agent holds its own llm and tool scopes", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: (body) => {
        const messages = (body as { messages: { role: string; content: string }[] }).messages;
        const who = JSON.stringify(messages).includes("alpha") ? "alpha" : "beta";
        return messages.some((m) => m.role === "tool")
          ? { text: `done ${who}` }
          : { toolCalls: [{ id: `call_${who}`, name: "get_time", arguments: { zone: who } }] };
      },
    });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const model = modelAt(provider.url);
    const go = (who: string) => generateText({ model, tools: weatherTools(), stopWhen: isStepCount(3), prompt: `Time for ${who}?` });
    const [a, b] = await Promise.all([go("alpha"), go("beta")]);
    expect([a.text, b.text]).toEqual(["done alpha", "done beta"]);

    const { events, trajectories } = await run.finish();
    const agents = starts(events, "agent");
    expect(agents.map((e) => e.data).sort()).toEqual(["Time for alpha?", "Time for beta?"]);
    for (const agent of agents) {
      const who = String(agent.data).includes("alpha") ? "alpha" : "beta";
      const children = scopesOf(events).filter((e) => e.parent_uuid === agent.uuid);
      expect(sequence(children)).toEqual(["start llm", "end llm", "start tool", "end tool", "start llm", "end llm"]);
      const llmStarts = children.filter((e) => e.category === "llm" && e.scope_category === "start");
      for (const s of llmStarts) expect(JSON.stringify(s.data)).toContain(`Time for ${who}?`);
      expect(children.find((e) => e.category === "tool")!.category_profile?.["tool_call_id"]).toBe(`call_${who}`);
      expect(ends(events, "agent").find((e) => e.uuid === agent.uuid)!.data).toBe(`done ${who}`);
    }
    expect(trajectories.map((t) => t.steps[0]!.message).sort()).toEqual(["Time for alpha?", "Time for beta?"]);
  });

  it("per call: telemetry.integrations takes precedence over the registered integrations", async () => {
    provider = await startScriptedProvider({ turns: [{ text: "one" }, { text: "two" }] });
    const global = integrationRun();
    const local = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: global.runtime }));
    await generateText({
      model: modelAt(provider.url),
      prompt: "first",
      telemetry: { functionId: "support-bot", integrations: [relaytraceTelemetry({ runtime: local.runtime })] },
    });
    // the SDK still takes the deprecated name
    await generateText({
      model: modelAt(provider.url),
      prompt: "second",
      experimental_telemetry: { integrations: relaytraceTelemetry({ runtime: local.runtime, name: "named" }) },
    });
    const { events } = await local.finish();
    expect(starts(events, "agent").map((e) => e.name)).toEqual(["support-bot", "named"]);
    expect(starts(events, "agent")[0]!.metadata).toMatchObject({ "ai.telemetry.function_id": "support-bot" });
    expect(ends(events, "llm").map((e) => (e.data as { choices: { message: { content: string } }[] }).choices[0]!.message.content)).toEqual(
      ["one", "two"],
    );
    expect(scopesOf((await global.finish()).events)).toEqual([]);
  });

  it("captureContent: false keeps every prompt, completion, argument and result out; structure, usage and ids stay", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        {
          toolCalls: [{ id: "call_s", name: "lookup", arguments: { key: "SECRET-ARGUMENT" } }],
          usage: { promptTokens: 30, completionTokens: 5 },
        },
        { text: "SECRET-COMPLETION", usage: { promptTokens: 50, completionTokens: 7 } },
      ],
    });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime, captureContent: false }));
    const tools = {
      lookup: tool({
        inputSchema: jsonSchema<{ key: string }>({ type: "object", properties: { key: { type: "string" } }, required: ["key"] }),
        execute: async () => "SECRET-RESULT",
      }),
    };
    const result = await generateText({
      model: modelAt(provider.url),
      tools,
      stopWhen: isStepCount(3),
      system: "SECRET-SYSTEM",
      prompt: "SECRET-PROMPT",
    });
    expect(result.text).toBe("SECRET-COMPLETION");
    const { events, trajectories } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual([
      "start agent",
      "start llm",
      "end llm",
      "start tool",
      "end tool",
      "start llm",
      "end llm",
      "end agent",
    ]);
    const everything = JSON.stringify(events) + JSON.stringify(trajectories);
    for (const secret of ["SECRET-ARGUMENT", "SECRET-COMPLETION", "SECRET-RESULT", "SECRET-SYSTEM", "SECRET-PROMPT"]) {
      expect(everything).not.toContain(secret);
    }
    expect(starts(events, "tool")[0]!.category_profile?.["tool_call_id"]).toBe("call_s");
    expect(ends(events, "llm")[0]!.data).toMatchObject({
      choices: [{ finish_reason: "tool_calls", message: { tool_calls: [{ id: "call_s", function: { name: "lookup" } }] } }],
      usage: { prompt_tokens: 30, completion_tokens: 5 },
    });
    expect(ends(events, "agent")[0]!.metadata).toMatchObject({ "ai.usage.input_tokens": 80, "ai.finish_reason": "stop" });
  });

  it("a ToolLoopAgent run, generated and streamed, is one agent scope each; a run inside a tool nests under that tool", async () => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        { toolCalls: [{ id: "call_sub", name: "ask_expert", arguments: { question: "why?" } }] },
        { text: "Because." }, // the expert's own run, inside the tool
        { text: "The expert says: Because." },
        { text: "Streamed answer." },
      ],
    });
    const run = integrationRun();
    registerTelemetry(relaytraceTelemetry({ runtime: run.runtime }));
    const model = modelAt(provider.url);
    const agent = new ToolLoopAgent({
      model,
      instructions: "You route questions.",
      tools: {
        ask_expert: tool({
          inputSchema: jsonSchema<{ question: string }>({
            type: "object",
            properties: { question: { type: "string" } },
            required: ["question"],
          }),
          execute: async ({ question }) => (await generateText({ model, prompt: question })).text,
        }),
      },
    });
    const generated = await agent.generate({ prompt: "Ask the expert why." });
    expect(generated.text).toBe("The expert says: Because.");
    const streamed = await agent.stream({ prompt: "And now?" });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe("Streamed answer.");

    const { events } = await run.finish();
    const agents = starts(events, "agent");
    expect(agents.map((e) => e.data)).toEqual(["Ask the expert why.", "why?", "And now?"]);
    const [outer, inner, streamedAgent] = agents;
    const toolScope = starts(events, "tool")[0]!;
    expect(toolScope.parent_uuid).toBe(outer!.uuid);
    expect(inner!.parent_uuid).toBe(toolScope.uuid);
    expect(streamedAgent!.parent_uuid).toBe(outer!.parent_uuid);
    const innerLlm = starts(events, "llm").filter((e) => e.parent_uuid === inner!.uuid);
    expect(innerLlm).toHaveLength(1);
    for (const e of ends(events, "agent")) expect(e.metadata).toMatchObject({ "otel.status_code": "OK" });
    // the agent's instructions are the system message of its model calls
    const firstRequest = starts(events, "llm")[0]!.data as { content: { messages: { role: string; content: unknown }[] } };
    expect(firstRequest.content.messages[0]).toMatchObject({ role: "system", content: "You route questions." });
  });

  it("never throws into the SDK or the app, whatever it is handed", async () => {
    const run = integrationRun();
    const integration = relaytraceTelemetry({ runtime: run.runtime });
    const junk = [undefined, null, 42, "x", {}, { callId: "nope" }, { callId: 1, operationId: "ai.generateText" }];
    for (const value of junk) {
      for (const key of Object.keys(integration) as (keyof typeof integration)[]) {
        if (key === "executeTool" || key === "executeLanguageModelCall") continue;
        expect(() => (integration[key] as (event: unknown) => void)(value)).not.toThrow();
      }
    }
    integration.onStart({
      callId: "c1",
      operationId: "ai.generateText",
      messages: [null, { role: "user", content: [7, { type: "text" }] }],
    });
    integration.onLanguageModelCallStart({
      callId: "c1",
      provider: "p",
      modelId: "m",
      messages: [{ role: "tool", content: "bad" }],
      tools: [{}],
    });
    integration.onLanguageModelCallEnd({ callId: "c1", provider: "p", modelId: "m", finishReason: "stop", usage: {}, content: [] });
    integration.onEnd({ callId: "c1" });
    expect(await integration.executeTool({ callId: "none", toolCallId: "t", execute: async () => 5 })).toBe(5);
    await expect(
      integration.executeLanguageModelCall({
        callId: "none",
        execute: async () => {
          throw new Error("provider down");
        },
      }),
    ).rejects.toThrow("provider down");
    const { events } = await run.finish();
    expect(sequence(scopesOf(events))).toEqual(["start agent", "start llm", "end llm", "end agent"]);
  });

  it("an event's own time (a durable run reports its events later) is the time of its scope event", async () => {
    const run = integrationRun();
    const integration = relaytraceTelemetry({ runtime: run.runtime });
    const t0 = Date.parse("2026-01-02T03:04:05.000Z");
    const base = { callId: "c1", provider: "p", modelId: "m" };
    integration.onStart({ ...base, operationId: "ai.generateText", messages: [{ role: "user", content: "hi" }], timestamp: t0 });
    integration.onLanguageModelCallStart({ ...base, messages: [], timestamp: t0 + 10 });
    integration.onLanguageModelCallEnd({ ...base, finishReason: "stop", usage: {}, content: [], timestamp: t0 + 20 });
    integration.onEnd({ callId: "c1", text: "ok", timestamp: t0 + 30 });
    const { events } = await run.finish();
    const ms = (e: { timestamp: string | number }) => (typeof e.timestamp === "number" ? e.timestamp / 1000 : Date.parse(e.timestamp));
    expect(scopesOf(events).map((e) => ms(e) - t0)).toEqual([0, 10, 20, 30]);
  });

  it("the ai 7 block of docs/adapters.md runs against ai 7 and prints what it promises", async () => {
    const code = await ai7DocBlock();
    const promised: string[] = [];
    const lines = code.split("\n");
    lines.forEach((line, i) => {
      if (!line.includes("console.log(")) return;
      const trailing = /\);\s*\/\/ (.+)$/.exec(line);
      if (trailing) promised.push(trailing[1]!);
      for (let j = i + 1; j < lines.length && /^\/\/ /.test(lines[j]!); j++) promised.push(lines[j]!.slice(3));
    });
    expect(promised.length).toBeGreaterThanOrEqual(2);
    const dir = await mkdtemp(join(ROOT, ".ai7-doc-block-"));
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
    try {
      const file = join(dir, "block.ts");
      await writeFile(file, `${code}\n`);
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
      await rm(dir, { recursive: true, force: true });
    }
    expect(printed).toEqual(promised);
  });

  it("types: the integration is an ai 7 Telemetry, for registerTelemetry and per call; the docs block type-checks", async () => {
    const out = await typeCheck(
      ["test/types/ai-sdk7-telemetry.check.ts"],
      {
        relaytrace: ["./src/index.ts"],
        "relaytrace/ai-sdk": ["./src/integrations/ai-sdk/index.ts"],
        "relaytrace/testing": ["./exporters/testing/index.ts"],
      },
      { "adapters-ai7-block.ts": `${await ai7DocBlock()}\n` },
    );
    expect(out).toBe("");
  }, 120_000);
});
