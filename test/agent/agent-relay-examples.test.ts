import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import {
  createClient,
  createToolkit,
  defineTool,
  isRelayRequest,
  relayCallsOf,
  relayTool,
  RELAY_OUTPUT_KEY,
  type Request,
  type Tool,
} from "../../src/agent/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { openaiReply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function provider(...args: Parameters<typeof startProvider>) {
  const p = await startProvider(...args);
  closers.push(p.close);
  return p;
}

describe("relay tool — the RelayTool examples", () => {
  it("1. the relay call reaches the host through waitFor and its output becomes the tool result", async () => {
    const srv = await provider([
      openaiReply(null, [{ id: "c1", name: "lookup", arguments: '{"q":"weather"}' }], {
        prompt_tokens: 4,
        completion_tokens: 4,
        total_tokens: 8,
      }),
      openaiReply("it is sunny", [], { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }),
    ]);
    const lookup = relayTool("lookup", "look something up", { type: "object", properties: { q: { type: "string" } } });
    const toolkit = await createToolkit({ builtins: false, tools: [lookup] });
    let got: Request | undefined;
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
      waitFor: async (req) => {
        got = req;
        return { id: req.id, ok: true, data: { [RELAY_OUTPUT_KEY]: "sunny, 31C" } };
      },
    });
    const res = await client.run("weather?", { toolkit });
    expect(res.status).toBe("done");
    expect(res.text).toBe("it is sunny");
    expect(isRelayRequest(got)).toBe(true);
    const calls = relayCallsOf(got);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id: "c1", name: "lookup", input: { q: "weather" }, arguments: '{"q":"weather"}' });
    expect(res.toolCalls[0]).toMatchObject({ output: "sunny, 31C", isError: false });
    // the model received the host's output as the tool result
    const second = srv.requests[1]!.body.messages as { role: string; content: string; tool_call_id?: string }[];
    expect(second.at(-1)).toEqual({ role: "tool", tool_call_id: "c1", content: "sunny, 31C" });
  });

  it("2. three relay calls in one turn ride a single surfaced request, in call order", async () => {
    const srv = await provider([
      openaiReply(
        null,
        [
          { id: "c1", name: "alpha", arguments: "{}" },
          { id: "c2", name: "beta", arguments: "{}" },
          { id: "c3", name: "gamma", arguments: "{}" },
        ],
        { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 },
      ),
    ]);
    const relay = (name: string) => relayTool(name, "relayed to the caller");
    const toolkit = await createToolkit({ builtins: false, tools: [relay("alpha"), relay("beta"), relay("gamma")] });
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
    });
    const res = await client.run("go", { toolkit });
    expect(res.status).toBe("pending");
    expect(res.pending).toBeDefined();
    const calls = relayCallsOf(res.pending);
    expect(calls.map((c) => c.name)).toEqual(["alpha", "beta", "gamma"]);
    expect(calls.map((c) => c.id)).toEqual(["c1", "c2", "c3"]);
    expect(srv.requests).toHaveLength(1);
  });

  it("3. a real tool runs alongside a relay tool, and a declined relay does not abort the run", async () => {
    let realRan = false;
    const real = defineTool({
      name: "real_tool",
      description: "runs locally",
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        realRan = true;
        return { output: "real-output", isError: false };
      },
    });
    const relayed = relayTool("relayed_tool", "runs at the host");
    const toolkit = await createToolkit({ builtins: false, tools: [real, relayed] });
    const usage = { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 };
    const srv = await provider([
      openaiReply(null, [{ id: "c1", name: "real_tool", arguments: "{}" }], usage),
      openaiReply(null, [{ id: "c2", name: "relayed_tool", arguments: "{}" }], usage),
      openaiReply("handled the decline", [], usage),
    ]);
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
      waitFor: async (req) => ({ id: req.id, ok: false, reason: "declined" }),
    });
    const res = await client.run("do both", { toolkit });
    expect(realRan).toBe(true);
    expect(res.status).toBe("done");
    expect(res.text).toBe("handled the decline");
    expect(res.toolCalls.map((c) => [c.name, c.output, c.isError])).toEqual([
      ["real_tool", "real-output", false],
      ["relayed_tool", "relay declined for relayed_tool: declined", true],
    ]);
  });
});

describe("relay is inert when absent", () => {
  it("a declared but uncalled relay tool changes nothing but its declaration", async () => {
    const add = defineTool({ name: "add", description: "adds", execute: (a) => String(Number(a.a) + Number(a.b)) });
    const outcome = async (tools: Tool[]) => {
      const srv = await provider([openaiReply(null, [{ id: "c1", name: "add", arguments: '{"a":1,"b":2}' }]), openaiReply("3")]);
      const runtime = createRuntime();
      const events: AtofEvent[] = [];
      runtime.subscribe("capture", (e) => void events.push(e));
      const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime, retryBaseMs: 1 });
      const res = await client.run("1+2", { toolkit: await createToolkit({ tools }) });
      await runtime.flush();
      const shape = events.map((e) => [
        e.kind,
        e.name,
        e.category,
        e.kind === "scope" ? e.attributes : null,
        e.kind === "scope" && e.category !== "llm" ? e.data : null,
      ]);
      return {
        res: { status: res.status, text: res.text, toolCalls: res.toolCalls, messages: res.messages },
        shape,
        sentTools: srv.requests.map((r) => (r.body.tools as { function: { name: string } }[]).map((t) => t.function.name)),
      };
    };
    const without = await outcome([add]);
    const withRelay = await outcome([add, relayTool("remote_thing", "never called")]);
    expect(withRelay.res).toEqual(without.res);
    expect(withRelay.shape).toEqual(without.shape);
    expect(withRelay.sentTools[0]).toEqual(["add", "remote_thing"]);
    expect(JSON.stringify(without.shape)).not.toContain("remote");
  });
});
