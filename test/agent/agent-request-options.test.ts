import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, type ClientOptions, type LlmErrorInfo, type Toolkit } from "../../src/agent/index.js";
import { startScriptedProvider, type ScriptedProvider, type ScriptedTurn } from "../../exporters/testing/scripted-provider.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function provider(turns: ScriptedTurn[], style: "openai" | "anthropic" = "openai", delayMs?: number): Promise<ScriptedProvider> {
  const srv = await startScriptedProvider({ style, turns, ...(delayMs ? { delayMs } : {}) });
  closers.push(srv.close);
  return srv;
}

type Extra = Partial<Pick<ClientOptions, "requestParams" | "bodyTransform" | "onError" | "retries">>;

function clientFor(srv: ScriptedProvider, extra: Extra, style: "openai" | "anthropic" = "openai") {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const client = createClient({ baseUrl: srv.url, style, model: "stub", apiKey: "sk-secret-123", runtime, retryBaseMs: 1, ...extra });
  return { client, runtime, events };
}

function llmStarts(events: AtofEvent[]): AtofEvent[] {
  return events.filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "start");
}

function bodyAt(srv: ScriptedProvider, i: number): Record<string, unknown> {
  return srv.requests[i]!.body as Record<string, unknown>;
}

const noTools = (): Promise<Toolkit> => createToolkit({ tools: [] });

describe("requestParams", () => {
  it("is merged into the body of every turn of run, over the loop's own fields, leaving messages intact", async () => {
    const srv = await provider([{ text: "done" }], "anthropic");
    const { client } = clientFor(srv, { requestParams: { temperature: 0.2, max_tokens: 128, metadata: { user_id: "u1" } } }, "anthropic");
    const res = await client.run("hi", { toolkit: await noTools() });
    expect(res.text).toBe("done");
    const body = bodyAt(srv, 0);
    expect(body).toMatchObject({ model: "stub", temperature: 0.2, max_tokens: 128, metadata: { user_id: "u1" } });
    expect(body.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("reaches the server on a streamed run, which still streams", async () => {
    const srv = await provider([{ text: "streamed text" }]);
    const { client } = clientFor(srv, { requestParams: { temperature: 0, seed: 7 } });
    const kinds: string[] = [];
    for await (const e of client.stream("hi", { toolkit: await noTools() })) kinds.push(e.type);
    expect(kinds).toContain("text");
    expect(kinds.at(-1)).toBe("done");
    expect(bodyAt(srv, 0)).toMatchObject({ stream: true, temperature: 0, seed: 7 });
  });

  it("reaches the server through translate, for both upstream styles", async () => {
    for (const style of ["openai", "anthropic"] as const) {
      const srv = await provider([{ text: "ok" }], style);
      const { client } = clientFor(srv, { requestParams: { temperature: 0.7, top_p: 0.9 } }, style);
      const out = await client.translate({ messages: [{ role: "user", content: "hi" }] });
      expect(out.text).toBe("ok");
      expect(bodyAt(srv, 0)).toMatchObject({ temperature: 0.7, top_p: 0.9, model: "stub" });
      expect(bodyAt(srv, 0).messages).toEqual([{ role: "user", content: "hi" }]);
    }
  });

  it("rejects messages, tools and stream at createClient with a TypeError naming the key", () => {
    for (const key of ["messages", "tools", "stream"]) {
      const make = () =>
        createClient({
          baseUrl: "http://127.0.0.1:9",
          style: "openai",
          model: "m",
          apiKey: "k",
          requestParams: { temperature: 1, [key]: [] },
        });
      expect(make).toThrow(TypeError);
      expect(make).toThrow(`"${key}"`);
    }
  });

  it("is copied when the client is made: later edits to the caller's object change nothing", async () => {
    const srv = await provider([{ text: "a" }]);
    const params: Record<string, unknown> = { temperature: 0.1 };
    const { client } = clientFor(srv, { requestParams: params });
    params.temperature = 0.9;
    params.messages = [];
    await client.run("hi", { toolkit: await noTools() });
    expect(bodyAt(srv, 0).temperature).toBe(0.1);
    expect(bodyAt(srv, 0).messages).toEqual([{ role: "user", content: "hi" }]);
  });
});

describe("bodyTransform", () => {
  it("runs last: it sees the merged params and its output is what the server receives", async () => {
    const srv = await provider([{ text: "a" }]);
    const seen: unknown[] = [];
    const { client } = clientFor(srv, {
      requestParams: { temperature: 0.5 },
      bodyTransform: (body) => {
        seen.push(body.temperature);
        return { ...body, temperature: 0.9, messages: [{ role: "user", content: "rewritten" }] };
      },
    });
    await client.run("hi", { toolkit: await noTools() });
    expect(seen).toEqual([0.5]);
    expect(bodyAt(srv, 0)).toMatchObject({ temperature: 0.9, messages: [{ role: "user", content: "rewritten" }] });
  });

  it("returning undefined keeps the body; in-place edits are sent but never leak into the transcript", async () => {
    const srv = await provider([{ text: "a" }, { text: "b" }]);
    let calls = 0;
    const { client } = clientFor(srv, {
      requestParams: { temperature: 0.3 },
      bodyTransform: (body) => {
        calls++;
        if (calls === 2) (body.messages as unknown[]).push({ role: "user", content: "injected" });
        return undefined;
      },
    });
    const first = await client.run("one", { toolkit: await noTools() });
    expect(bodyAt(srv, 0)).toEqual({ model: "stub", messages: [{ role: "user", content: "one" }], temperature: 0.3 });
    const second = await client.run("two", { toolkit: await noTools() });
    expect(bodyAt(srv, 1).messages).toEqual([
      { role: "user", content: "two" },
      { role: "user", content: "injected" },
    ]);
    // the run's own transcript is what the loop built, not the transformed copy
    expect(second.messages).toEqual([
      { role: "user", content: "two" },
      { role: "assistant", content: "b" },
    ]);
    expect(first.messages).toHaveLength(2);
  });

  it("applies to the streamed and translate bodies too", async () => {
    const srv = await provider([{ text: "s" }, { text: "t" }]);
    const { client } = clientFor(srv, { bodyTransform: (body) => ({ ...body, user: "end-user-1" }) });
    for await (const _ of client.stream("hi", { toolkit: await noTools() })) void _;
    await client.translate({ messages: [{ role: "user", content: "x" }] });
    expect(bodyAt(srv, 0)).toMatchObject({ stream: true, user: "end-user-1" });
    expect(bodyAt(srv, 1)).toMatchObject({ user: "end-user-1" });
  });
});

describe("the llm scope records the body actually sent", () => {
  it("run, stream and translate: start data.content equals what the server received, without credentials", async () => {
    const srv = await provider([{ text: "r" }, { text: "s" }, { text: "t" }]);
    const { client, runtime, events } = clientFor(srv, {
      requestParams: { temperature: 0.4 },
      bodyTransform: (body) => ({ ...body, max_tokens: 64 }),
    });
    await client.run("hi", { toolkit: await noTools() });
    for await (const _ of client.stream("hi", { toolkit: await noTools() })) void _;
    await client.translate({ messages: [{ role: "user", content: "x" }] });
    await runtime.flush();
    const starts = llmStarts(events);
    expect(starts).toHaveLength(3);
    starts.forEach((start, i) => {
      expect((start.data as { content: unknown }).content).toEqual(srv.requests[i]!.body);
      expect(srv.requests[i]!.body).toMatchObject({ temperature: 0.4, max_tokens: 64 });
    });
    expect(srv.requests[0]!.headers.authorization).toBe("Bearer sk-secret-123");
    expect(JSON.stringify(events)).not.toContain("sk-secret-123");
  });
});

describe("onError", () => {
  it('"fail" surfaces the first failure at once, even when it is retryable', async () => {
    const srv = await provider([{ status: 503, body: { error: "busy" } }, { text: "never reached" }]);
    const infos: LlmErrorInfo[] = [];
    const { client } = clientFor(srv, { retries: 2, onError: (info) => (infos.push(info), "fail") });
    await expect(client.run("hi", { toolkit: await noTools() })).rejects.toThrow("LLM 503");
    expect(srv.requests).toHaveLength(1);
    expect(infos).toHaveLength(1);
    // the provider answered: the status, and no error
    expect(infos[0]).toEqual({ status: 503, attempt: 0, retryable: true });
  });

  it("a transport failure carries the error and no status", async () => {
    const srv = await provider([{ text: "unused" }]);
    const url = srv.url;
    await srv.close();
    const infos: LlmErrorInfo[] = [];
    const client = createClient({
      baseUrl: url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retries: 0,
      onError: (info) => (infos.push(info), "fail"),
    });
    await expect(client.run("hi")).rejects.toThrow(/failed|ECONNREFUSED/);
    expect(infos).toHaveLength(1);
    expect(infos[0]!.status).toBeUndefined();
    expect(infos[0]!.error).toBeInstanceOf(Error);
    expect(infos[0]).toMatchObject({ attempt: 0, retryable: true });
  });

  it('"retry" retries a non-retryable status, but never more than `retries`', async () => {
    const bad: ScriptedTurn = { status: 400, body: { error: "bad request" } };
    const srv = await provider([bad, bad, bad, bad, { text: "too late" }]);
    const infos: LlmErrorInfo[] = [];
    const { client } = clientFor(srv, { retries: 2, onError: (info) => (infos.push(info), "retry") });
    await expect(client.run("hi", { toolkit: await noTools() })).rejects.toThrow("LLM 400");
    expect(srv.requests).toHaveLength(3);
    expect(infos.map((i) => [i.attempt, i.status, i.retryable])).toEqual([
      [0, 400, false],
      [1, 400, false],
      [2, 400, false],
    ]);
  });

  it('"retry" on a 400 lets a later attempt succeed; the default would have failed at once', async () => {
    const srv = await provider([{ status: 400, body: { error: "flaky" } }, { text: "recovered" }]);
    const { client } = clientFor(srv, { retries: 1, onError: () => "retry" });
    expect((await client.run("hi", { toolkit: await noTools() })).text).toBe("recovered");

    const plain = await provider([{ status: 400, body: { error: "flaky" } }, { text: "recovered" }]);
    const { client: defaults } = clientFor(plain, { retries: 1 });
    await expect(defaults.run("hi", { toolkit: await noTools() })).rejects.toThrow("LLM 400");
    expect(plain.requests).toHaveLength(1);
  });

  it("applies to streamed runs and translate as well", async () => {
    const srv = await provider([{ status: 503, body: {} }, { status: 503, body: {} }, { text: "after" }]);
    const infos: LlmErrorInfo[] = [];
    const { client } = clientFor(srv, { retries: 3, onError: (info) => (infos.push(info), "fail") });
    await expect(async () => {
      for await (const _ of client.stream("hi", { toolkit: await noTools() })) void _;
    }).rejects.toThrow("LLM 503");
    await expect(client.translate({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow("LLM 503");
    expect(srv.requests).toHaveLength(2);
    expect(infos.map((i) => i.attempt)).toEqual([0, 0]);
  });

  it("a throwing onError rejects the run with its own error and stops retrying", async () => {
    const srv = await provider([{ status: 503, body: {} }, { text: "never reached" }]);
    const { client } = clientFor(srv, {
      retries: 2,
      onError: () => {
        throw new Error("policy exploded");
      },
    });
    await expect(client.run("hi", { toolkit: await noTools() })).rejects.toThrow("policy exploded");
    expect(srv.requests).toHaveLength(1);
  });

  it("is never called for an abort", async () => {
    const srv = await provider([{ text: "slow" }], "openai", 2_000);
    const infos: LlmErrorInfo[] = [];
    const { client } = clientFor(srv, { retries: 2, onError: (info) => (infos.push(info), "retry") });
    const controller = new AbortController();
    const running = client.run("hi", { toolkit: await noTools(), signal: controller.signal });
    // abort once the request is on the wire
    while (srv.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error("user cancelled"));
    await expect(running).rejects.toThrow("user cancelled");
    expect(infos).toEqual([]);
    expect(srv.requests).toHaveLength(1);
  });
});
