import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool, InMemoryConversationStore, pending, type ClientOptions } from "../../src/agent/index.js";
import { reply, startProvider, type Script, type ScriptedReply } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function provider(script: Script | ScriptedReply[]) {
  const p = await startProvider(script);
  closers.push(p.close);
  return p;
}

const add = defineTool({
  name: "add",
  description: "adds two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: (args) => String((args.a as number) + (args.b as number)),
});

function clientFor(url: string, style: "openai" | "anthropic", extra: Partial<ClientOptions> = {}) {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const client = createClient({ baseUrl: url, style, model: "stub", apiKey: "sk-secret", runtime, retryBaseMs: 1, ...extra });
  return { client, runtime, events };
}

/** The tool results the provider received in a request, in order, for either dialect. */
function toolResultsIn(style: "openai" | "anthropic", messages: unknown[]): { id: string; content: string }[] {
  const out: { id: string; content: string }[] = [];
  for (const m of messages as Record<string, unknown>[]) {
    if (style === "openai" && m.role === "tool") out.push({ id: m.tool_call_id as string, content: m.content as string });
    if (style === "anthropic" && m.role === "user" && Array.isArray(m.content)) {
      for (const b of m.content as Record<string, unknown>[])
        if (b.type === "tool_result") out.push({ id: b.tool_use_id as string, content: b.content as string });
    }
  }
  return out;
}

describe.each(["openai", "anthropic"] as const)("agent loop (%s)", (style) => {
  it("runs a tool turn then finishes with the model's text, summing usage", async () => {
    const srv = await provider([reply(style, "", [{ id: "c1", name: "add", arguments: '{"a":2,"b":3}' }]), reply(style, "five")]);
    const { client } = clientFor(srv.url, style, { systemPrompt: "be brief" });
    const toolkit = await createToolkit({ tools: [add] });
    const res = await client.run("2+3?", { toolkit });
    expect(res).toMatchObject({ status: "done", text: "five", turns: 2, toolCallCount: 1 });
    expect(res.usage).toEqual({ promptTokens: 8, completionTokens: 4, totalTokens: 12 });
    expect(res.toolCalls).toEqual([{ id: "c1", name: "add", args: { a: 2, b: 3 }, output: "5", isError: false }]);
    expect(toolResultsIn(style, srv.requests[1]!.body.messages as unknown[])).toEqual([{ id: "c1", content: "5" }]);
    expect(res.runUuid).toMatch(/^[0-9a-f-]{36}$/);
    if (style === "openai") {
      expect(srv.requests[0]!.path).toBe("/chat/completions");
      expect(srv.requests[0]!.headers.authorization).toBe("Bearer sk-secret");
      expect((srv.requests[0]!.body.messages as unknown[])[0]).toEqual({ role: "system", content: "be brief" });
    } else {
      expect(srv.requests[0]!.path).toBe("/v1/messages");
      expect(srv.requests[0]!.headers["x-api-key"]).toBe("sk-secret");
      expect(srv.requests[0]!.body.system).toBe("be brief");
    }
  });

  it("turns invalid args, unknown tools and throwing tools into error results, runs calls concurrently and appends in call order", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineTool({
      name: "slow",
      description: "",
      execute: async () => {
        await gate;
        return "slow done";
      },
    });
    const fast = defineTool({
      name: "fast",
      description: "",
      execute: () => {
        release();
        return "fast done";
      },
    });
    const boom = defineTool({
      name: "boom",
      description: "",
      execute: () => {
        throw new Error("kaboom");
      },
    });
    const srv = await provider([
      reply(style, "", [
        { id: "c1", name: "slow", arguments: "{}" },
        { id: "c2", name: "fast", arguments: "{}" },
        { id: "c3", name: "add", arguments: '{"a":"x","b":1}' },
        { id: "c4", name: "missing", arguments: "{}" },
        { id: "c5", name: "boom", arguments: "{}" },
      ]),
      reply(style, "ok"),
    ]);
    const { client } = clientFor(srv.url, style);
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [slow, fast, add, boom] }) });
    expect(res.status).toBe("done");
    const expected = [
      { id: "c1", content: "slow done" },
      { id: "c2", content: "fast done" },
      { id: "c3", content: "invalid arguments for add: /a must be number" },
      { id: "c4", content: "Unknown tool: missing" },
      { id: "c5", content: "kaboom" },
    ];
    expect(toolResultsIn(style, srv.requests[1]!.body.messages as unknown[])).toEqual(expected);
    expect(res.toolCalls.map((c) => c.isError)).toEqual([false, false, true, true, true]);
  });

  it("stops at maxTurns with status incomplete", async () => {
    const srv = await provider(() => reply(style, "", [{ id: "c1", name: "add", arguments: '{"a":1,"b":1}' }]));
    const { client } = clientFor(srv.url, style, { maxTurns: 2 });
    const res = await client.run("loop", { toolkit: await createToolkit({ tools: [add] }) });
    expect(res).toMatchObject({ status: "incomplete", limit: "maxTurns", turns: 2, text: "" });
    expect(srv.requests).toHaveLength(2);
  });

  it("ask keeps the conversation across two calls", async () => {
    const srv = await provider([reply(style, "hi Ann"), reply(style, "your name is Ann")]);
    const store = new InMemoryConversationStore();
    const { client } = clientFor(srv.url, style, { store });
    const toolkit = await createToolkit({});
    await client.ask("I am Ann", { toolkit, id: "conv-1" });
    const second = await client.ask("who am I?", { toolkit, id: "conv-1" });
    expect(second.text).toBe("your name is Ann");
    const sent = srv.requests[1]!.body.messages as { role: string; content: unknown }[];
    const texts = sent.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    expect(texts.some((t) => t.includes("I am Ann"))).toBe(true);
    expect(texts.some((t) => t.includes("hi Ann"))).toBe(true);
    expect(texts.at(-1)).toContain("who am I?");
    expect((await store.get("conv-1"))!.length).toBe(sent.length + 1);
    await store.delete("conv-1");
    expect(await store.get("conv-1")).toBeUndefined();
  });
});

describe("agent loop edge cases", () => {
  it("a tool result whose metadata is not plain JSON still completes the run", async () => {
    const odd = defineTool({
      name: "odd",
      description: "",
      execute: () => ({ output: "ok", isError: false, metadata: { note: undefined, when: new Date(0) } }),
    });
    const srv = await provider([reply("openai", "", [{ id: "c1", name: "odd", arguments: "{}" }]), reply("openai", "fine")]);
    const { client } = clientFor(srv.url, "openai");
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [odd] }) });
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]!.output).toBe("ok");
  });

  it("takes the API key from the environment when none is given, preferring the style's own key", async () => {
    const saved = { o: process.env.OPENAI_API_KEY, a: process.env.ANTHROPIC_API_KEY, r: process.env.OPENROUTER_API_KEY };
    delete process.env.OPENROUTER_API_KEY;
    process.env.OPENAI_API_KEY = "env-openai";
    process.env.ANTHROPIC_API_KEY = "env-anthropic";
    try {
      const srv = await provider([reply("anthropic", "hi")]);
      const client = createClient({ baseUrl: srv.url, style: "anthropic", model: "stub", runtime: createRuntime() });
      await client.run("x", { toolkit: await createToolkit({}) });
      expect(srv.requests[0]!.headers["x-api-key"]).toBe("env-anthropic");
    } finally {
      for (const [k, v] of [
        ["OPENAI_API_KEY", saved.o],
        ["ANTHROPIC_API_KEY", saved.a],
        ["OPENROUTER_API_KEY", saved.r],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("runtime tool request intercepts apply to the loop's tool calls", async () => {
    const srv = await provider([reply("openai", "", [{ id: "c1", name: "add", arguments: '{"a":1,"b":1}' }]), reply("openai", "ok")]);
    const { client, runtime } = clientFor(srv.url, "openai");
    runtime.registerToolRequestIntercept("double-a", 1, (_tool, args) => ({ ...(args as Record<string, number>), a: 10 }));
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [add] }) });
    expect(res.toolCalls[0]!.output).toBe("11");
  });

  it("client.translate makes exactly one traced provider call", async () => {
    const srv = await provider([reply("openai", "", [{ id: "t1", name: "add", arguments: '{"a":1}' }])]);
    const { client, runtime, events } = clientFor(srv.url, "openai");
    const out = await client.translate({ messages: [{ role: "user", content: "hi" }], toolkit: await createToolkit({ tools: [add] }) });
    await runtime.flush();
    expect(out).toMatchObject({ finishReason: "tool_calls", toolCalls: [{ id: "t1", name: "add", arguments: '{"a":1}' }] });
    expect(srv.requests).toHaveLength(1);
    expect(events.filter((e) => e.kind === "scope" && e.category === "llm")).toHaveLength(2);
    expect(JSON.stringify(events)).not.toContain("sk-secret");
  });
});

describe("agent loop failures", () => {
  it("retries a 503 and records an llm.retry mark parented to the llm scope", async () => {
    const srv = await provider([{ status: 503, json: { error: "busy" } }, reply("openai", "fine")]);
    const { client, runtime, events } = clientFor(srv.url, "openai");
    const res = await client.run("hi", { toolkit: await createToolkit({}) });
    await runtime.flush();
    expect(res.text).toBe("fine");
    expect(srv.requests).toHaveLength(2);
    const llmStart = events.find((e) => e.kind === "scope" && e.category === "llm")!;
    const retry = events.find((e) => e.kind === "mark" && e.name === "llm.retry")!;
    expect(retry.parent_uuid).toBe(llmStart.uuid);
    expect(retry.data).toMatchObject({ attempt: 0, status: 503 });
  });

  it("rejects with the provider error after the last attempt and ends the agent scope with ERROR", async () => {
    const srv = await provider([{ status: 500, json: { error: "down" } }]);
    const { client, runtime, events } = clientFor(srv.url, "openai", { retries: 1 });
    await expect(client.run("hi", { toolkit: await createToolkit({}) })).rejects.toThrow(/LLM 500/);
    await runtime.flush();
    expect(srv.requests).toHaveLength(2);
    const agentEnd = events.find((e) => e.kind === "scope" && e.category === "agent" && e.scope_category === "end")!;
    expect((agentEnd.metadata as Record<string, unknown>)["otel.status_code"]).toBe("ERROR");
  });

  it("an abort during the provider call rejects with the reason and ends the llm and agent scopes", async () => {
    const controller = new AbortController();
    const srv = await provider((_req) => {
      setImmediate(() => controller.abort(new Error("stop waiting")));
      return { hang: true };
    });
    const { client, runtime, events } = clientFor(srv.url, "openai");
    await expect(client.run("go", { toolkit: await createToolkit({}), signal: controller.signal })).rejects.toThrow("stop waiting");
    await runtime.flush();
    expect(events.map((e) => `${e.kind === "scope" ? e.category : "mark"}:${e.kind === "scope" ? e.scope_category : e.name}`)).toEqual([
      "agent:start",
      "llm:start",
      "llm:end",
      "agent:end",
    ]);
    expect(srv.requests).toHaveLength(1);
  });

  it("timeoutMs is a whole-run deadline, also while waitFor is pending", async () => {
    const srv = await provider([reply("openai", "", [{ id: "a1", name: "approve", arguments: "{}" }])]);
    const approve = defineTool({ name: "approve", description: "", execute: () => pending({ kind: "approval", prompt: "ok?" }) });
    const { client, runtime, events } = clientFor(srv.url, "openai", { timeoutMs: 50, waitFor: () => new Promise(() => {}) });
    await expect(client.run("go", { toolkit: await createToolkit({ tools: [approve] }) })).rejects.toThrow(/timeout|aborted/i);
    await runtime.flush();
    const agentEnd = events.find((e) => e.kind === "scope" && e.category === "agent" && e.scope_category === "end")!;
    expect((agentEnd.metadata as Record<string, unknown>)["otel.status_code"]).toBe("ERROR");
  });

  it("sends a traceparent naming the llm span to the provider unless disabled", async () => {
    const srv = await provider(() => reply("openai", "hi"));
    const { client, runtime, events } = clientFor(srv.url, "openai");
    await client.run("x", { toolkit: await createToolkit({}) });
    await runtime.flush();
    const llm = events.find((e) => e.kind === "scope" && e.category === "llm")!;
    expect(srv.requests[0]!.headers.traceparent).toMatch(new RegExp(`^00-[0-9a-f]{32}-${llm.uuid.replace(/-/g, "").slice(16)}-01$`));
    const off = clientFor(srv.url, "openai", { injectTraceparent: false });
    await off.client.run("x", { toolkit: await createToolkit({}) });
    expect(srv.requests[1]!.headers.traceparent).toBeUndefined();
  });

  it("an aborted run rejects with the abort reason and every scope ends", async () => {
    const controller = new AbortController();
    const stuck = defineTool({
      name: "stuck",
      description: "",
      execute: (_args, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
          controller.abort(new Error("user cancelled"));
        }),
    });
    const srv = await provider([reply("openai", "", [{ id: "c1", name: "stuck", arguments: "{}" }]), reply("openai", "never")]);
    const { client, runtime, events } = clientFor(srv.url, "openai");
    await expect(client.run("go", { toolkit: await createToolkit({ tools: [stuck] }), signal: controller.signal })).rejects.toThrow(
      "user cancelled",
    );
    await runtime.flush();
    expect(srv.requests).toHaveLength(1);
    const scopes = events.filter((e) => e.kind === "scope");
    const starts = scopes
      .filter((e) => e.scope_category === "start")
      .map((e) => e.uuid)
      .sort();
    const ends = scopes
      .filter((e) => e.scope_category === "end")
      .map((e) => e.uuid)
      .sort();
    expect(ends).toEqual(starts);
    expect(starts.length).toBe(3); // agent, llm, tool
  });
});

describe("agent loop: toolnexus behaviours", () => {
  it("waitFor may answer synchronously: the call re-runs with the answer and the run goes on", async () => {
    const srv = await provider([reply("openai", "", [{ id: "c1", name: "approve", arguments: "{}" }]), reply("openai", "done")]);
    const approve = defineTool({
      name: "approve",
      description: "",
      execute: (_a, ctx) => (ctx.answer ? `approved:${String(ctx.answer.data?.who)}` : pending({ kind: "approval", prompt: "ok?" })),
    });
    const { client } = clientFor(srv.url, "openai", { waitFor: (req) => ({ id: req.id, ok: true, data: { who: "ada" } }) });
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [approve] }) });
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]).toMatchObject({ output: "approved:ada", isError: false });
    // a waitFor that throws synchronously aborts the run, like a rejection
    const again = await provider([reply("openai", "", [{ id: "c1", name: "approve", arguments: "{}" }])]);
    const { client: throwing } = clientFor(again.url, "openai", {
      waitFor: () => {
        throw new Error("no approver");
      },
    });
    await expect(throwing.run("go", { toolkit: await createToolkit({ tools: [approve] }) })).rejects.toThrow("no approver");
  });

  it("the question builtin halts the run durably without waitFor, the request carrying the questions", async () => {
    const questions = [{ question: "Which city?", options: ["Oslo", "Bergen"] }];
    const srv = await provider([
      reply("openai", "", [{ id: "q1", name: "question", arguments: JSON.stringify({ questions }) }]),
      reply("openai", "Oslo it is"),
    ]);
    const { client } = clientFor(srv.url, "openai");
    const toolkit = await createToolkit({ builtins: ["question"] });
    const halted = await client.run("plan a trip", { toolkit });
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "question", prompt: "Which city? (options: Oslo, Bergen)", data: { questions } });
    const resumed = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: { id: halted.pending!.id, ok: true, data: { answers: [["Oslo"]] } },
      halt: halted.halt!,
    });
    expect(resumed.text).toBe("Oslo it is");
    const sent = srv.requests[1]!.body.messages as { role: string; content: string }[];
    expect(sent.find((m) => m.role === "tool")!.content).toBe('{"answers":[["Oslo"]]}');
  });

  it("a per-tool timeoutMs ends a slow tool with an error result and aborts its signal; the run goes on", async () => {
    const srv = await provider([reply("openai", "", [{ id: "c1", name: "slow", arguments: "{}" }]), reply("openai", "gave up on it")]);
    let aborted = false;
    const slow = defineTool({
      name: "slow",
      description: "",
      timeoutMs: 30,
      execute: (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => (aborted = true));
          setTimeout(() => resolve("too late"), 2_000).unref();
        }),
    });
    const { client } = clientFor(srv.url, "openai");
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [slow] }) });
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]).toMatchObject({ output: "tool slow timed out after 30 ms", isError: true });
    expect(aborted).toBe(true);
    expect(() => defineTool({ name: "bad", description: "", timeoutMs: 0, execute: () => "" })).toThrow(/timeoutMs/);
  });

  it("translate fires beforeLLM and afterLLM once (turn 0), swallows their errors and records one llm metric", async () => {
    const srv = await provider([reply("openai", "translated")]);
    const { client: failing } = clientFor(srv.url, "openai", {
      hooks: {
        beforeLLM: () => {
          throw new Error("ignored in translate");
        },
        afterLLM: () => {
          throw new Error("also ignored");
        },
      },
    });
    expect((await failing.translate({ messages: [{ role: "user", content: "hi" }] })).text).toBe("translated");
    const seen: string[] = [];
    const metrics: string[] = [];
    const { client } = clientFor(srv.url, "openai", {
      onMetric: (m) => void metrics.push(`${m.event}:${"status" in m ? m.status : ""}`),
      hooks: {
        beforeLLM: ({ messages, turn }) => (
          seen.push(`before:${turn}`),
          { messages: [...messages, { role: "user", content: "added by hook" }] }
        ),
        afterLLM: ({ turn, response }) => void seen.push(`after:${turn}:${(response as { model: string }).model}`),
      },
    });
    const out = await client.translate({ messages: [{ role: "user", content: "hi" }] });
    expect(out.text).toBe("translated");
    expect(seen).toEqual(["before:0", "after:0:stub"]);
    expect(metrics).toEqual(["llm:ok"]);
    expect(client.metrics()).toContain('toolnexus_llm_requests_total{model="stub",status="ok"} 1\n');
    expect(srv.requests).toHaveLength(2);
    expect((srv.requests[1]!.body.messages as unknown[]).at(-1)).toEqual({ role: "user", content: "added by hook" });
  });
});

describe("ask without an id is stateless", () => {
  it("runs like run: no history is loaded or saved between calls", async () => {
    const p = await provider([reply("openai", "one"), reply("openai", "two")]);
    const { client } = clientFor(p.url, "openai");
    const toolkit = await createToolkit();
    await client.ask("first", { toolkit });
    await client.ask("second", { toolkit });
    expect((p.requests[1]!.body as { messages: unknown[] }).messages).toEqual([{ role: "user", content: "second" }]);
  });
});
