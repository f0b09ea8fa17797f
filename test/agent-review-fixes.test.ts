import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRuntime } from "../src/runtime/runtime.js";
import type { AtofEvent } from "../src/events/types.js";
import {
  createClient,
  createToolkit,
  defineTool,
  ProviderHttpError,
  relayTool,
  type ClientOptions,
  type Request,
} from "../src/agent/index.js";
import { isRetryableStatus } from "../src/agent/providers/errors.js";
import { startScriptedProvider, type ScriptedProvider, type ScriptedTurn } from "../exporters/testing/scripted-provider.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function provider(turns: ScriptedTurn[], style: "openai" | "anthropic" = "openai"): Promise<ScriptedProvider> {
  const p = await startScriptedProvider({ style, turns });
  closers.push(p.close);
  return p;
}

function header(p: ScriptedProvider, i: number, name: string): string | string[] | undefined {
  return p.requests[i]!.headers[name];
}

const KEY_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"] as const;

describe("API key fallback never crosses providers", () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const k of KEY_VARS) {
      saved[k] = process.env[k];
      delete process.env[k];
    }
  });
  afterEach(() => {
    for (const k of KEY_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  async function firstRequestHeaders(style: "openai" | "anthropic", extra: Partial<ClientOptions> = {}) {
    const p = await provider([{ text: "hi" }], style);
    const client = createClient({ baseUrl: p.url, style, model: "m", runtime: createRuntime(), ...extra });
    await client.run("hello", { toolkit: await createToolkit() });
    return p.requests[0]!.headers;
  }

  it("an openai-style client with only ANTHROPIC_API_KEY set sends no authorization header", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-should-stay-home";
    const headers = await firstRequestHeaders("openai");
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain("sk-ant-should-stay-home");
  });

  it("an anthropic-style client with only OPENAI_API_KEY / OPENROUTER_API_KEY set sends no x-api-key", async () => {
    process.env.OPENAI_API_KEY = "sk-openai-should-stay-home";
    process.env.OPENROUTER_API_KEY = "sk-or-should-stay-home";
    const headers = await firstRequestHeaders("anthropic");
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it("openai style: own key first, then OPENROUTER_API_KEY; an explicit apiKey beats both", async () => {
    process.env.OPENROUTER_API_KEY = "sk-or-key";
    expect((await firstRequestHeaders("openai")).authorization).toBe("Bearer sk-or-key");
    process.env.OPENAI_API_KEY = "sk-openai-key";
    expect((await firstRequestHeaders("openai")).authorization).toBe("Bearer sk-openai-key");
    expect((await firstRequestHeaders("openai", { apiKey: "sk-explicit" })).authorization).toBe("Bearer sk-explicit");
  });

  it("anthropic style uses ANTHROPIC_API_KEY", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-key";
    expect((await firstRequestHeaders("anthropic"))["x-api-key"]).toBe("sk-ant-key");
  });
});

describe("in-process relay answers are checked", () => {
  const lookupSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };

  it("a waitFor answer with another request's id rejects the run, and every scope still ends", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "w" } }] }, { text: "unreachable" }]);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    let pendingId = "";
    const client = createClient({
      baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime, retryBaseMs: 1,
      waitFor: async (req: Request) => {
        pendingId = req.id;
        return { id: "someone-else", ok: true, data: { output: "wrong call's output" } };
      },
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const failure = await client.run("go", { toolkit }).then(() => undefined, (e: unknown) => e);
    await runtime.flush();
    expect(pendingId).not.toBe("");
    expect((failure as Error).message).toBe(`waitFor answered request "someone-else" but the pending request is "${pendingId}"`);
    // the mismatched answer was never fed to the model
    expect(p.requests).toHaveLength(1);
    const starts = events.filter((e) => e.kind === "scope" && e.scope_category === "start").map((e) => e.uuid).sort();
    const ends = events.filter((e) => e.kind === "scope" && e.scope_category === "end").map((e) => e.uuid).sort();
    expect(starts.length).toBeGreaterThanOrEqual(3); // agent + llm + tool
    expect(ends).toEqual(starts);
  });

  it("a relay answer with no result for the call becomes an error result, not an empty success", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "w" } }] }, { text: "done" }]);
    const client = createClient({
      baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1,
      waitFor: async (req) => ({ id: req.id, ok: true, data: { results: [{ id: "not-c1", output: "other" }] } }),
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]).toMatchObject({ name: "lookup", output: "no result supplied for lookup", isError: true });
    const sent = (p.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.at(-1);
    expect(sent).toMatchObject({ role: "tool", content: "no result supplied for lookup" });
  });

  it("relay arguments that fail the schema are an error result naming the path, with no suspension", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: 42 } }] }, { text: "fixed it" }]);
    let waited = 0;
    const client = createClient({
      baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1,
      waitFor: async (req) => (waited++, { id: req.id, ok: true, data: { output: "should not be asked" } }),
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(waited).toBe(0);
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]!.isError).toBe(true);
    expect(res.toolCalls[0]!.output).toMatch(/^invalid arguments for lookup: \/q /);
  });

  it("without waitFor, invalid relay arguments do not halt the run either", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: {} }] }, { text: "ok" }]);
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1 });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(res.status).toBe("done");
    expect(res.pending).toBeUndefined();
    expect(res.toolCalls[0]!.output).toContain("invalid arguments for lookup");
  });
});

describe("wrong options fail loudly at construction", () => {
  const good: ClientOptions = { baseUrl: "http://127.0.0.1:9/v1", style: "openai", model: "m", runtime: createRuntime() };
  const make = (o: Record<string, unknown>) => () => createClient(o as unknown as ClientOptions);

  it("rejects a missing baseUrl, an unknown style, a missing model and a bad maxTurns", () => {
    const { baseUrl: _b, ...noBase } = good;
    const { model: _m, ...noModel } = good;
    expect(make(noBase)).toThrow(TypeError);
    expect(make(noBase)).toThrow(/baseUrl/);
    expect(make({ ...good, style: "gemini" })).toThrow(/style/);
    expect(make(noModel)).toThrow(/model/);
    for (const bad of [0, -1, 1.5, "3"]) expect(make({ ...good, maxTurns: bad })).toThrow(/maxTurns/);
    expect(make({ ...good, maxTurns: 3 })).not.toThrow();
  });

  it("rejects an unknown key, pointing at the closest known one", () => {
    expect(make({ ...good, base_url: "x" })).toThrow(/unknown option "base_url" \(did you mean "baseUrl"\?\)/);
    expect(make({ ...good, max_turns: 2 })).toThrow(/did you mean "maxTurns"/);
    expect(make({ ...good, sytemPrompt: "hi" })).toThrow(/did you mean "systemPrompt"/);
    const unrelated = make({ ...good, frobnicate: true });
    expect(unrelated).toThrow(TypeError);
    expect(unrelated).toThrow(/unknown option "frobnicate"; allowed options: baseUrl, style, model/);
  });

  it("defineTool and relayTool reject a missing execute, an empty name and names providers refuse", () => {
    const schema = { type: "object", properties: {} };
    expect(() => defineTool({ name: "t", description: "d", inputSchema: schema } as never)).toThrow(/execute/);
    expect(() => defineTool({ name: "", description: "d", execute: () => "x" })).toThrow(TypeError);
    expect(() => defineTool({ name: "has.dot", description: "d", execute: () => "x" })).toThrow(/invalid tool name "has\.dot"/);
    expect(() => defineTool({ name: "x".repeat(65), description: "d", execute: () => "x" })).toThrow(TypeError);
    expect(defineTool({ name: "x".repeat(64), description: "d", execute: () => "x" }).name).toHaveLength(64);
    expect(() => relayTool("has space", "d")).toThrow(/invalid tool name "has space"/);
    expect(() => relayTool("", "d")).toThrow(TypeError);
  });

  it("createToolkit rejects two of the caller's tools sharing a name; shadowing a built-in stays allowed", async () => {
    const tool = (name: string, out: string) => defineTool({ name, description: "d", execute: () => out });
    await expect(createToolkit({ tools: [tool("dup", "a"), tool("dup", "b")] })).rejects.toThrow(/two tools share the name "dup"/);
    const kit = await createToolkit({ builtins: true, tools: [tool("read", "mine")] });
    expect((await kit.execute("read", {})).output).toBe("mine");
  });
});

describe("ask without an id is stateless", () => {
  it("runs like run: no history is loaded or saved between calls", async () => {
    const p = await provider([{ text: "one" }, { text: "two" }]);
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: createRuntime() });
    const toolkit = await createToolkit();
    await client.ask("first", { toolkit });
    await client.ask("second", { toolkit });
    expect((p.requests[1]!.body as { messages: unknown[] }).messages).toEqual([{ role: "user", content: "second" }]);
  });
});

describe("529 overloaded is retried like 503", () => {
  it("is classified retryable", () => {
    expect(isRetryableStatus(529)).toBe(true);
    expect(new ProviderHttpError(529, '{"type":"error","error":{"type":"overloaded_error"}}').retryable).toBe(true);
  });

  it("an anthropic run that meets one 529 retries and succeeds", async () => {
    const p = await provider([{ status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }, { text: "after retry" }], "anthropic");
    const client = createClient({ baseUrl: p.url, style: "anthropic", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1 });
    const res = await client.run("hello", { toolkit: await createToolkit() });
    expect(res).toMatchObject({ status: "done", text: "after retry" });
    expect(p.requests).toHaveLength(2);
    expect(header(p, 1, "x-api-key")).toBe("k");
  });
});

describe("toolkit.register", () => {
  it("refuses a name the toolkit already has instead of silently keeping the old tool", async () => {
    const first = defineTool({ name: "lookup", description: "first", execute: () => "first" });
    const second = defineTool({ name: "lookup", description: "second", execute: () => "second" });
    const toolkit = await createToolkit({ tools: [first] });
    expect(() => toolkit.register(second)).toThrow("toolkit already has a tool named lookup");
    expect((await toolkit.execute("lookup", {})).output).toBe("first");
  });
});
