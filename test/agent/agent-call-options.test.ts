import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, type StreamEvent } from "../../src/agent/index.js";
import { reply, startProvider, type ScriptedReply } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`).join("");

/** A streamed reply whose text is the number of messages the request carried (so a growing count proves memory). */
function countingReply(body: Record<string, unknown>): ScriptedReply {
  const count = String((body.messages as unknown[]).length);
  if (body.stream !== true) return reply("openai", count);
  return {
    sse: sse([
      { choices: [{ index: 0, delta: { role: "assistant", content: count.slice(0, 1) } }] },
      { choices: [{ index: 0, delta: { content: count.slice(1) } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
      "[DONE]",
    ]),
  };
}

async function clientFor(script: (body: Record<string, unknown>) => ScriptedReply) {
  const srv = await startProvider((req) => script(req.body));
  closers.push(srv.close);
  const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1 });
  return { srv, client };
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<string> {
  let text = "";
  for await (const e of events) if (e.type === "done") text = e.result.text;
  return text;
}

describe("per-call options", () => {
  it("run, ask and stream work without a toolkit: no tools are declared", async () => {
    const { srv, client } = await clientFor(countingReply);
    expect((await client.run("hi")).text).toBe("1");
    expect((await client.ask("hi", { id: "s" })).text).toBe("1");
    expect(await drain(client.stream("hi"))).toBe("1");
    for (const r of srv.requests) expect(r.body.tools).toBeUndefined();
  });

  it("an unknown key on run, ask, stream or a resume is a TypeError naming it and the closest known key", async () => {
    const { srv, client } = await clientFor(() => reply("openai", "never"));
    await expect(client.run("hi", { toolKit: undefined } as never)).rejects.toThrow(
      /run: unknown option "toolKit" \(did you mean "toolkit"\?\)/,
    );
    await expect(client.ask("hi", { onTxt: () => {} } as never)).rejects.toThrow(/ask: unknown option "onTxt" \(did you mean "onText"\?\)/);
    await expect(drain(client.stream("hi", { sessionId: "x" } as never))).rejects.toThrow(/stream: unknown option "sessionId"/);
    const resume = { history: [], pending: { id: "p", kind: "input", prompt: "?" }, answer: { id: "p", ok: true } };
    await expect(client.runWithAnswer({ ...resume, awnser: 1 } as never)).rejects.toThrow(/runWithAnswer: unknown option "awnser"/);
    await expect(client.translate({ messages: [], sytem: "x" } as never)).rejects.toThrow(
      /translate: unknown option "sytem" \(did you mean "system"\?\)/,
    );
    expect(srv.requests).toHaveLength(0);
  });

  it("ask with onText streams the provider call, hands over each delta and still returns the whole result", async () => {
    const { srv, client } = await clientFor((body) =>
      body.stream === true
        ? {
            sse: sse([
              { choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }] },
              { choices: [{ index: 0, delta: { content: "lo" } }] },
              { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
              { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
              "[DONE]",
            ]),
          }
        : reply("openai", "Hello"),
    );
    const deltas: string[] = [];
    const streamed = await client.ask("hi", { id: "s1", onText: (d) => void deltas.push(d) });
    expect(deltas).toEqual(["Hel", "lo"]);
    expect(streamed.text).toBe("Hello");
    expect(streamed.usage.totalTokens).toBe(5);
    expect(srv.requests[0]!.body.stream).toBe(true);
    const plain = await client.ask("hi");
    expect(plain.text).toBe("Hello");
    expect(srv.requests[1]!.body.stream).toBeUndefined();
  });

  it("stream with an id remembers the conversation like ask; without one it is stateless; ids are independent", async () => {
    const { client } = await clientFor(countingReply);
    expect(await drain(client.stream("hi"))).toBe("1");
    expect(await drain(client.stream("first", { id: "s1" }))).toBe("1");
    // user + assistant + user
    expect(await drain(client.stream("second", { id: "s1" }))).toBe("3");
    expect(await drain(client.stream("other", { id: "s2" }))).toBe("1");
    expect(await client.store.get("s1")).toHaveLength(4);
    // ask continues the same stored conversation
    expect((await client.ask("third", { id: "s1" })).text).toBe("5");
  });
});
