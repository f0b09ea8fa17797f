import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import {
  authRequired,
  createClient,
  createToolkit,
  defineTool,
  pending,
  pendingOf,
  relayAnswer,
  relayCallsOf,
  relayTool,
  RELAY_OUTPUT_KEY,
  type Answer,
  type Request,
  type StreamEvent,
  type ToolResult,
} from "../../src/agent/index.js";
import { reply, startProvider, type ReceivedRequest, type ScriptedReply } from "../support/agent-provider-server.js";

// toolnexus's pending / concurrent-suspension conformance cases (its Go, Python, Java and C#
// suites: G1–G3, posture A and B, parked waitFor, relay beside other suspensions, resume), run
// against relaytrace's loop on a loopback provider. Where relaytrace deliberately differs — a
// halted turn is balanced, every suspended call keeping a placeholder result and its own request
// in the halt record — the case asserts relaytrace's form and says so.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function provider(script: ((r: ReceivedRequest, i: number) => ScriptedReply) | ScriptedReply[]) {
  const p = await startProvider(script);
  closers.push(p.close);
  return p;
}

type Style = "openai" | "anthropic";
const client = (url: string, style: Style, extra: Partial<Parameters<typeof createClient>[0]> = {}) =>
  createClient({ baseUrl: url, style, model: "stub", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1, ...extra });
const question = (id: string, text: string) => ({ id, name: "question", arguments: JSON.stringify({ questions: [{ question: text }] }) });

/** Every tool result of a transcript in either dialect, in order: [call id, content, isError?]. */
function results(messages: unknown[]): [string, unknown, unknown][] {
  const out: [string, unknown, unknown][] = [];
  for (const m of messages as Record<string, unknown>[]) {
    if (m.role === "tool") out.push([m.tool_call_id as string, m.content, undefined]);
    if (m.role === "user" && Array.isArray(m.content))
      for (const b of m.content as Record<string, unknown>[])
        if (b.type === "tool_result") out.push([b.tool_use_id as string, b.content, b.is_error]);
  }
  return out;
}

const sawToolResult = (r: ReceivedRequest) => results(r.body.messages as unknown[]).length > 0;

describe.each(["openai", "anthropic"] as const)("toolnexus G3: concurrent suspensions without waitFor (%s)", (style) => {
  it("surface the FIRST suspension in call order; every suspended call keeps its own request in the halt record", async () => {
    const srv = await provider([reply(style, "", [question("c1", "First?"), question("c2", "Second?")])]);
    const res = await client(srv.url, style).run("ask two", { toolkit: await createToolkit({ builtins: true }) });
    expect(res.status).toBe("pending");
    expect(res.pending?.prompt).toBe("First?");
    expect(res.text).toBe("First?");
    // relaytrace: balanced (toolnexus leaves c2 out, a transcript Anthropic rejects)
    expect(results(res.messages).map(([id, content]) => [id, content])).toEqual([
      ["c1", "First?"],
      ["c2", "Second?"],
    ]);
    const calls = res.halt!.calls;
    expect(calls.map((c) => [c.id, c.state])).toEqual([
      ["c1", "suspended"],
      ["c2", "suspended"],
    ]);
    expect(calls[0]!.requestId).toBe(res.pending!.id);
    expect(calls[1]!.requestId).not.toBe(res.pending!.id);
    expect(res.toolCalls.map((c) => [c.id, c.pending])).toEqual([
      ["c1", true],
      ["c2", true],
    ]);
  });
});

describe("toolnexus G3 streaming", () => {
  it("halts on the first suspension; no tool_result event for either call; done carries the pending run", async () => {
    const frame = (d: unknown) => `data: ${JSON.stringify(d)}\n\n`;
    const calls = [question("c1", "First?"), question("c2", "Second?")].map((c, index) => ({
      index,
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
    const sse =
      frame({ choices: [{ delta: { tool_calls: calls } }] }) +
      frame({ choices: [{ delta: {} }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) +
      "data: [DONE]\n\n";
    const srv = await provider([{ sse }]);
    const events: StreamEvent[] = [];
    for await (const ev of client(srv.url, "openai").stream("ask two", { toolkit: await createToolkit({ builtins: true }) }))
      events.push(ev);
    expect(events.some((e) => e.type === "tool_result")).toBe(false);
    const pendings = events.filter((e) => e.type === "pending");
    expect(pendings.map((e) => (e.type === "pending" ? e.request.prompt : ""))).toEqual(["First?"]);
    const done = events.at(-1)!;
    expect(done.type === "done" && [done.result.status, done.result.pending?.prompt]).toEqual(["pending", "First?"]);
  });
});

describe("toolnexus posture A and B", () => {
  const balance = (authed: { value: boolean }) =>
    defineTool({
      name: "get_balance",
      description: "Return the account balance. Requires login first.",
      execute: (_args, ctx) =>
        authed.value
          ? `balance: 67,417 (resolved via answer ${ctx.answer?.id ?? ""})`
          : authRequired("https://example.com/login?token=abc", "Log in to view your balance"),
    });
  const llm = () =>
    provider((r) =>
      sawToolResult(r) ? reply("openai", "Done — your balance is 67,417.") : reply("openai", "", [{ id: "c1", name: "get_balance" }]),
    );

  it("A: waitFor resolves and the tool is retried with the answer", async () => {
    const srv = await llm();
    const authed = { value: false };
    const seen: string[] = [];
    const c = client(srv.url, "openai", {
      waitFor: (req) => {
        seen.push(req.url ?? "");
        authed.value = true;
        return { id: req.id, ok: true };
      },
    });
    const res = await c.run("what is my balance?", { toolkit: await createToolkit({ tools: [balance(authed)] }) });
    expect(res.status).toBe("done");
    expect(seen[0]).toContain("example.com/login");
    expect(res.toolCalls[0]!.output).toContain("67,417");
    expect(res.text).toContain("67,417");
  });

  it("B: without waitFor the run halts with the authorization request", async () => {
    const srv = await llm();
    const res = await client(srv.url, "openai").run("what is my balance?", {
      toolkit: await createToolkit({ tools: [balance({ value: false })] }),
    });
    expect(res.status).toBe("pending");
    expect(res.pending).toMatchObject({ kind: "authorization", url: "https://example.com/login?token=abc" });
  });

  it("a suspension is not a tool error: the pending metric has isError false; afterTool sees only the resolved result", async () => {
    const srv = await provider((r) => (sawToolResult(r) ? reply("openai", "ok") : reply("openai", "", [question("c1", "Pick?")])));
    const metrics: Record<string, unknown>[] = [];
    const afterToolSaw: ToolResult[] = [];
    const c = client(srv.url, "openai", {
      waitFor: (req) => ({ id: req.id, ok: true, data: { answers: ["a"] } }),
      hooks: {
        afterTool: (ev) => {
          afterToolSaw.push(ev.result);
          return undefined;
        },
      },
      onMetric: (m) => void metrics.push(m as unknown as Record<string, unknown>),
    });
    const res = await c.run("ask", { toolkit: await createToolkit({ builtins: true }) });
    expect(res.status).toBe("done");
    const suspend = metrics.find((m) => m.event === "tool" && m.tool === "question" && m.pending === true);
    expect(suspend?.isError).toBe(false);
    expect(afterToolSaw).toHaveLength(1);
    expect(pendingOf(afterToolSaw[0])).toBeUndefined();
  });

  it("path B: a beforeTool suspension is honoured; on approval the real tool runs; counted pending, not an error", async () => {
    const srv = await provider((r) =>
      sawToolResult(r) ? reply("openai", "3") : reply("openai", "", [{ id: "c1", name: "add", arguments: '{"a":1,"b":2}' }]),
    );
    const add = defineTool({ name: "add", description: "add", execute: (a: Record<string, unknown>) => String(Number(a.a) + Number(a.b)) });
    const metrics: Record<string, unknown>[] = [];
    let asked = false;
    const c = client(srv.url, "openai", {
      hooks: {
        beforeTool: (ev) => (ev.name === "add" && !asked ? { result: pending({ kind: "approval", prompt: "approve add?" }) } : undefined),
      },
      waitFor: (req) => {
        asked = true;
        return { id: req.id, ok: true };
      },
      onMetric: (m) => void metrics.push(m as unknown as Record<string, unknown>),
    });
    const res = await c.run("add", { toolkit: await createToolkit({ tools: [add] }) });
    expect(res.status).toBe("done");
    const suspend = metrics.find((m) => m.event === "tool" && m.tool === "add" && m.pending === true);
    expect(suspend?.isError).toBe(false);
    expect(res.toolCalls.some((t) => t.name === "add" && t.output === "3")).toBe(true);
  });
});

describe("toolnexus: several calls of one turn suspend in parallel", () => {
  const relays = ["alpha", "beta", "gamma"];
  const threeRelays = () => createToolkit({ tools: relays.map((n) => relayTool(n, n)) });
  const turnOfThree = (style: Style) =>
    reply(
      style,
      "",
      relays.map((n, i) => ({ id: `c${i + 1}`, name: n })),
    );

  it("with waitFor parked, each call gets its own callback carrying only its own call; answered together, results go back in call order", async () => {
    const srv = await provider([turnOfThree("openai"), reply("openai", "all parked calls answered")]);
    const parked: { req: Request; answer: (a: Answer) => void }[] = [];
    let allParked!: () => void;
    const three = new Promise<void>((r) => (allParked = r));
    const c = client(srv.url, "openai", {
      waitFor: (req) =>
        new Promise<Answer>((answer) => {
          parked.push({ req, answer });
          if (parked.length === 3) allParked();
        }),
    });
    const run = c.run("go", { toolkit: await threeRelays() });
    await three;
    expect(parked.map((p) => relayCallsOf(p.req).map((x) => x.name)).sort()).toEqual([["alpha"], ["beta"], ["gamma"]]);
    // answered in reverse arrival order: the transcript is still in call order
    for (const p of [...parked].reverse())
      p.answer({ id: p.req.id, ok: true, data: { [RELAY_OUTPUT_KEY]: `out-${relayCallsOf(p.req)[0]!.name}` } });
    const res = await run;
    expect([res.status, res.text]).toEqual(["done", "all parked calls answered"]);
    expect(results(srv.requests[1]!.body.messages as unknown[]).map(([id, content]) => [id, content])).toEqual([
      ["c1", "out-alpha"],
      ["c2", "out-beta"],
      ["c3", "out-gamma"],
    ]);
  });

  it("one answers, one declines, one real tool finishes: each keeps its own result, in call order", async () => {
    const srv = await provider([
      reply("openai", "", [question("c1", "First?"), { id: "c2", name: "approve" }, { id: "c3", name: "add", arguments: '{"a":1,"b":2}' }]),
      reply("openai", "ok"),
    ]);
    const approve = defineTool({
      name: "approve",
      description: "",
      execute: (_a, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "ok?" })),
    });
    const add = defineTool({ name: "add", description: "", execute: (a: Record<string, unknown>) => String(Number(a.a) + Number(a.b)) });
    const asked: string[] = [];
    const c = client(srv.url, "openai", {
      waitFor: (req) => {
        asked.push(req.kind);
        return req.kind === "question"
          ? { id: req.id, ok: true, data: { answers: [["yes"]] } }
          : { id: req.id, ok: false, reason: "declined" };
      },
    });
    const res = await c.run("go", { toolkit: await createToolkit({ builtins: true, tools: [approve, add] }) });
    expect(asked.sort()).toEqual(["approval", "question"]);
    expect(res.status).toBe("done");
    expect(results(srv.requests[1]!.body.messages as unknown[]).map(([id, content]) => [id, content])).toEqual([
      ["c1", '{"answers":[["yes"]]}'],
      ["c2", "declined/expired: ok?"],
      ["c3", "3"],
    ]);
  });

  it.each(["openai", "anthropic"] as const)(
    "(%s) durable: a halt keeps the finished call's result; each resume sends every result of the turn in call order",
    async (style) => {
      const srv = await provider([
        reply(style, "", [question("c1", "First?"), { id: "c2", name: "add", arguments: '{"a":1,"b":2}' }, { id: "c3", name: "approve" }]),
        reply(style, "fin"),
      ]);
      const approve = defineTool({
        name: "approve",
        description: "",
        execute: (_a, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "ok?" })),
      });
      const add = defineTool({ name: "add", description: "", execute: (a: Record<string, unknown>) => String(Number(a.a) + Number(a.b)) });
      const toolkit = await createToolkit({ builtins: true, tools: [add, approve] });
      const c = client(srv.url, style);
      const first = await c.run("go", { toolkit });
      expect(first.pending?.prompt).toBe("First?");
      expect(first.halt!.calls.map((x) => x.state)).toEqual(["suspended", "completed", "suspended"]);
      const second = await c.runWithAnswer({
        toolkit,
        history: first.messages,
        pending: first.pending!,
        answer: { id: first.pending!.id, ok: true, data: { answers: [["yes"]] } },
        halt: first.halt!,
      });
      // c3 suspends again on its re-run: a new request for it, with no LLM call
      expect([second.status, second.pending?.prompt, srv.requests.length]).toEqual(["pending", "ok?", 1]);
      expect(second.halt!.calls.map((x) => [x.id, x.state])).toEqual([
        ["c1", "completed"],
        ["c2", "completed"],
        ["c3", "suspended"],
      ]);
      const third = await c.runWithAnswer({
        toolkit,
        history: second.messages,
        pending: second.pending!,
        answer: { id: second.pending!.id, ok: true },
        halt: second.halt!,
      });
      expect([third.status, third.text]).toEqual(["done", "fin"]);
      expect(results(srv.requests[1]!.body.messages as unknown[]).map(([id, content]) => [id, content])).toEqual([
        ["c1", '{"answers":[["yes"]]}'],
        ["c2", "3"],
        ["c3", "approved"],
      ]);
    },
  );

  it("relay and authorization in one turn: the first in order (authorization) surfaces, not contaminated by relay calls", async () => {
    const srv = await provider([
      reply("openai", "", [
        { id: "c1", name: "needs_login" },
        { id: "c2", name: "relayed" },
      ]),
    ]);
    const auth = defineTool({
      name: "needs_login",
      description: "auth",
      execute: () => authRequired("https://example.test/login", "log in first"),
    });
    const res = await client(srv.url, "openai").run("go", { toolkit: await createToolkit({ tools: [auth, relayTool("relayed", "r")] }) });
    expect(res.pending?.kind).toBe("authorization");
    expect(relayCallsOf(res.pending)).toEqual([]);
  });

  it("without a halt record, a resume fills every slot from the host's results and replaces the placeholders", async () => {
    const srv = await provider([turnOfThree("openai"), reply("openai", "all three answered")]);
    const toolkit = await threeRelays();
    const c = client(srv.url, "openai");
    const halted = await c.run("go", { toolkit });
    const answer = relayAnswer(
      halted.pending!.id,
      relays.map((n, i) => ({ id: `c${i + 1}`, output: `out-${n}` })),
    );
    const resumed = await c.runWithAnswer({ toolkit, history: halted.messages, pending: halted.pending!, answer });
    expect([resumed.status, resumed.text]).toEqual(["done", "all three answered"]);
    const sent = JSON.stringify(srv.requests[1]!.body.messages);
    expect(results(srv.requests[1]!.body.messages as unknown[]).map(([id]) => id)).toEqual(["c1", "c2", "c3"]);
    for (const n of relays) expect(sent).toContain(`out-${n}`);
    expect(sent).not.toContain("relay tool call alpha to the caller");
  });
});
