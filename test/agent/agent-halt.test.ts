import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import {
  createClient,
  createToolkit,
  defineTool,
  pending,
  relayAnswer,
  relayCallsOf,
  relayTool,
  type ClientOptions,
} from "../../src/agent/index.js";
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

function clientFor(url: string, style: "openai" | "anthropic", extra: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: url, style, model: "stub", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1, ...extra });
}

function toolResultsIn(style: "openai" | "anthropic", messages: unknown[]): { id: string; content: string; isError?: boolean }[] {
  const out: { id: string; content: string; isError?: boolean }[] = [];
  for (const m of messages as Record<string, unknown>[]) {
    if (style === "openai" && m.role === "tool") out.push({ id: m.tool_call_id as string, content: m.content as string });
    if (style === "anthropic" && m.role === "user" && Array.isArray(m.content)) {
      for (const b of m.content as Record<string, unknown>[])
        if (b.type === "tool_result")
          out.push({ id: b.tool_use_id as string, content: b.content as string, isError: b.is_error as boolean });
    }
  }
  return out;
}

/** User turns that carry the user's own words (not tool results). */
function userPrompts(messages: unknown[]): unknown[] {
  return (messages as Record<string, unknown>[]).filter(
    (m) =>
      m.role === "user" &&
      (typeof m.content === "string" || !(m.content as Record<string, unknown>[]).some((b) => b.type === "tool_result")),
  );
}

const add = defineTool({
  name: "add",
  description: "adds",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  execute: (args) => String((args.a as number) + (args.b as number)),
});
const approve = defineTool({
  name: "approve",
  description: "needs a human",
  execute: (_args, ctx) =>
    ctx.answer ? `approved with ${String(ctx.answer.data?.note)}` : pending({ kind: "approval", prompt: "approve the transfer?" }),
});

describe.each(["openai", "anthropic"] as const)("durable halt and resume (%s)", (style) => {
  const turn1 = () =>
    reply(style, "", [
      { id: "c1", name: "add", arguments: '{"a":1,"b":2}' },
      { id: "c2", name: "lookup", arguments: '{ "q" : "x" }' },
      { id: "c3", name: "fetch", arguments: '{"url":"u"}' },
    ]);

  it("halts with a balanced transcript, merged relay calls and a halt record; resume feeds exactly one result per call and no new user turn", async () => {
    const srv = await provider([turn1(), reply(style, "all done")]);
    const client = clientFor(srv.url, style);
    const toolkit = await createToolkit({ tools: [add, relayTool("lookup", "l"), relayTool("fetch", "f")] });
    const halted = await client.run("go", { toolkit });
    expect(halted.status).toBe("pending");
    expect(halted.text).toBe("relay tool call lookup to the caller for execution");
    const calls = relayCallsOf(halted.pending);
    expect(calls.map((c) => [c.id, c.name])).toEqual([
      ["c2", "lookup"],
      ["c3", "fetch"],
    ]);
    // OpenAI keeps the provider's raw arguments text; Anthropic has only the input object
    expect(calls[0]!.arguments).toBe(style === "openai" ? '{ "q" : "x" }' : '{"q":"x"}');
    expect(calls[0]!.input).toEqual({ q: "x" });
    expect(halted.halt).toEqual({
      assistantIndex: halted.messages.length - (style === "openai" ? 4 : 2),
      calls: [
        { id: "c1", name: "add", state: "completed" },
        { id: "c2", name: "lookup", state: "suspended", requestId: halted.pending!.id },
        { id: "c3", name: "fetch", state: "suspended", requestId: expect.any(String) },
      ],
    });
    expect(halted.toolCalls.map((c) => [c.id, c.output, c.pending ?? false])).toEqual([
      ["c1", "3", false],
      ["c2", "relay tool call lookup to the caller for execution", true],
      ["c3", "relay tool call fetch to the caller for execution", true],
    ]);
    expect(toolResultsIn(style, halted.messages).map((r) => r.id)).toEqual(["c1", "c2", "c3"]);

    const answer = relayAnswer(halted.pending!.id, [
      { id: "c3", output: "page body" },
      { id: "c2", output: "found x", isError: false },
    ]);
    const resumed = await client.runWithAnswer({ toolkit, history: halted.messages, pending: halted.pending!, answer, halt: halted.halt! });
    expect(resumed).toMatchObject({ status: "done", text: "all done", turns: 1, toolCallCount: 0 });
    const sent = srv.requests[1]!.body.messages as unknown[];
    const results = toolResultsIn(style, sent);
    expect(results.map((r) => [r.id, r.content])).toEqual([
      ["c1", "3"],
      ["c2", "found x"],
      ["c3", "page body"],
    ]);
    expect(userPrompts(sent)).toHaveLength(1);
  });

  it("without a halt record applies the toolnexus repair: results by id, shorthand for the first call, else a 'no result' error", async () => {
    const srv = await provider([turn1(), reply(style, "ok")]);
    const client = clientFor(srv.url, style);
    const toolkit = await createToolkit({ tools: [add, relayTool("lookup", "l"), relayTool("fetch", "f")] });
    const halted = await client.run("go", { toolkit });
    const answer = { id: halted.pending!.id, ok: true, data: { output: "short for c1", results: [{ id: "c2", output: "found" }] } };
    await client.runWithAnswer({ toolkit, history: halted.messages, pending: halted.pending!, answer });
    const results = toolResultsIn(style, srv.requests[1]!.body.messages as unknown[]);
    expect(results.map((r) => [r.id, r.content])).toEqual([
      ["c1", "short for c1"],
      ["c2", "found"],
      ["c3", "no result supplied on resume for fetch"],
    ]);
  });

  it("a declined relay resume feeds 'relay declined' for every relay call; completed results are kept", async () => {
    const srv = await provider([turn1(), reply(style, "ok")]);
    const client = clientFor(srv.url, style);
    const toolkit = await createToolkit({ tools: [add, relayTool("lookup", "l"), relayTool("fetch", "f")] });
    const halted = await client.run("go", { toolkit });
    await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: { id: halted.pending!.id, ok: false },
      halt: halted.halt!,
    });
    const results = toolResultsIn(style, srv.requests[1]!.body.messages as unknown[]);
    expect(results.map((r) => r.content)).toEqual(["3", "relay declined for lookup: declined", "relay declined for fetch: declined"]);
  });

  it("a non-relay suspension halts; the resume re-executes it once with the answer", async () => {
    const srv = await provider([reply(style, "", [{ id: "a1", name: "approve", arguments: "{}" }]), reply(style, "transferred")]);
    const client = clientFor(srv.url, style);
    const toolkit = await createToolkit({ tools: [approve] });
    const halted = await client.run("send money", { toolkit });
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "approval", prompt: "approve the transfer?" });
    const resumed = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: { id: halted.pending!.id, ok: true, data: { note: "ok-42" } },
      halt: halted.halt!,
    });
    expect(resumed.text).toBe("transferred");
    expect(toolResultsIn(style, srv.requests[1]!.body.messages as unknown[]).map((r) => r.content)).toEqual(["approved with ok-42"]);
  });

  it("askWithAnswer resumes a stored conversation and abandon repairs it", async () => {
    const srv = await provider([
      reply(style, "", [{ id: "a1", name: "approve", arguments: "{}" }]),
      reply(style, "", [{ id: "a2", name: "approve", arguments: "{}" }]),
      reply(style, "gave up"),
    ]);
    const client = clientFor(srv.url, style);
    const toolkit = await createToolkit({ tools: [approve] });
    const first = await client.ask("pay", { toolkit, id: "conv" });
    expect(first.status).toBe("pending");
    const second = await client.askWithAnswer({
      toolkit,
      id: "conv",
      pending: first.pending!,
      answer: { id: first.pending!.id, ok: false },
      halt: first.halt!,
    });
    expect(second.status).toBe("pending");
    expect(toolResultsIn(style, srv.requests[1]!.body.messages as unknown[]).map((r) => r.content)).toEqual([
      "declined/expired: approve the transfer?",
    ]);
    const repaired = await client.abandon("conv", second.pending!, { halt: second.halt!, reason: "timeout" });
    expect(toolResultsIn(style, repaired).map((r) => r.content)).toEqual([
      "declined/expired: approve the transfer?",
      "abandoned (timeout): approve the transfer?",
    ]);
    const third = await client.ask("never mind", { toolkit, id: "conv" });
    expect(third.text).toBe("gave up");
  });
});

describe("mixed suspensions", () => {
  it("a non-relay suspension first is surfaced unmodified; its resume re-runs the other suspended call, which halts again with no LLM call", async () => {
    const srv = await provider([
      reply("openai", "", [
        { id: "a1", name: "approve", arguments: "{}" },
        { id: "r1", name: "lookup", arguments: '{"q":1}' },
      ]),
      reply("openai", "finished"),
    ]);
    const client = clientFor(srv.url, "openai");
    const toolkit = await createToolkit({ tools: [approve, relayTool("lookup", "l")] });
    const first = await client.run("go", { toolkit });
    expect(first.pending).toMatchObject({ kind: "approval", prompt: "approve the transfer?" });
    expect(first.halt!.calls.map((c) => c.state)).toEqual(["suspended", "suspended"]);

    const second = await client.runWithAnswer({
      toolkit,
      history: first.messages,
      pending: first.pending!,
      answer: { id: first.pending!.id, ok: true, data: { note: "n" } },
      halt: first.halt!,
    });
    expect(second.status).toBe("pending");
    expect(srv.requests).toHaveLength(1); // halted again before any LLM call
    expect(relayCallsOf(second.pending).map((c) => c.id)).toEqual(["r1"]);
    expect(second.halt!.calls).toEqual([
      { id: "a1", name: "approve", state: "completed" },
      { id: "r1", name: "lookup", state: "suspended", requestId: second.pending!.id },
    ]);
    expect(toolResultsIn("openai", second.messages).map((r) => r.content)).toEqual([
      "approved with n",
      "relay tool call lookup to the caller for execution",
    ]);

    const third = await client.runWithAnswer({
      toolkit,
      history: second.messages,
      pending: second.pending!,
      answer: { id: second.pending!.id, ok: true, data: { output: "one" } },
      halt: second.halt!,
    });
    expect(third.text).toBe("finished");
    expect(toolResultsIn("openai", srv.requests[1]!.body.messages as unknown[]).map((r) => r.content)).toEqual(["approved with n", "one"]);
  });
});

describe("resume errors and in-process waitFor", () => {
  it("rejects an answer whose id does not echo the pending id, and an empty transcript", async () => {
    const client = clientFor("http://127.0.0.1:9", "openai");
    const toolkit = await createToolkit({});
    const pendingReq = { id: "pnd-1", kind: "approval", prompt: "p" };
    await expect(
      client.runWithAnswer({ toolkit, history: [{ role: "user", content: "x" }], pending: pendingReq, answer: { id: "other", ok: true } }),
    ).rejects.toThrow('cannot resume — answer id "other" does not echo the pending request id "pnd-1"');
    await expect(client.runWithAnswer({ toolkit, history: [], pending: pendingReq, answer: { id: "pnd-1", ok: true } })).rejects.toThrow(
      "cannot resume — no transcript supplied",
    );
  });

  it("waitFor: ok re-executes once, a second suspension is unresolved, !ok is declined/expired", async () => {
    const always = defineTool({ name: "always", description: "", execute: () => pending({ kind: "input", prompt: "need input" }) });
    const srv = await provider([
      reply("openai", "", [
        { id: "w1", name: "approve", arguments: "{}" },
        { id: "w2", name: "always", arguments: "{}" },
      ]),
      reply("openai", "", [{ id: "w3", name: "approve", arguments: "{}" }]),
      reply("openai", "end"),
    ]);
    const seen: string[] = [];
    const client = clientFor(srv.url, "openai", {
      waitFor: async (req) => {
        seen.push(req.prompt);
        return seen.length <= 2 ? { id: req.id, ok: true, data: { note: "yes" } } : { id: req.id, ok: false, reason: "expired" };
      },
    });
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [approve, always] }) });
    expect(res.status).toBe("done");
    expect(res.toolCalls.map((c) => c.output)).toEqual([
      "approved with yes",
      "unresolved: need input",
      "declined/expired: approve the transfer?",
    ]);
  });
});
