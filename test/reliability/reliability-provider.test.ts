import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, createToolkit, ProviderError } from "../../src/agent/index.js";
import { AtofPairingChecker } from "../../src/events/atof-pairing.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { add, startCollector, type CollectorBehaviour, type FaultCollector } from "../support/fault-collector.js";

const servers: FaultCollector[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(async () => {
  process.off("unhandledRejection", onUnhandled);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function provider(behaviour: CollectorBehaviour): Promise<string> {
  const server = await startCollector(behaviour, "/");
  servers.push(server);
  return server.url.replace(/\/$/, "");
}

function setup(baseUrl: string) {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const client = createClient({ baseUrl, style: "openai", model: "m", apiKey: "sk-x", runtime, retries: 1, retryBaseMs: 1 });
  return { runtime, events, client };
}

/** Every scope that started also ended, exactly once; no unhandled rejection happened. */
async function everyScopeClosed(runtime: ReturnType<typeof createRuntime>, events: AtofEvent[]): Promise<void> {
  await runtime.flush();
  await new Promise((r) => setImmediate(r));
  const starts = events.filter((e) => e.kind === "scope" && e.scope_category === "start").map((e) => e.uuid);
  const ends = events.filter((e) => e.kind === "scope" && e.scope_category === "end").map((e) => e.uuid);
  expect(starts.length).toBeGreaterThanOrEqual(2);
  expect([...ends].sort()).toEqual([...starts].sort());
  const warnings: { code: string }[] = [];
  const checker = new AtofPairingChecker();
  events.forEach((e, i) => checker.check(e, i + 1, warnings as never));
  expect(warnings).toEqual([]);
  expect(unhandled).toEqual([]);
}

const json =
  (status: number, body: string): CollectorBehaviour =>
  (_i, _req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  };

describe("a provider that misbehaves: a clear error, every scope closed, no unhandled rejection", () => {
  it("drops the connection mid-reply", async () => {
    const url = await provider((_i, req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"id":"x","choices":[{"message":');
      setTimeout(() => req.socket.destroy(), 5);
    });
    const { runtime, events, client } = setup(url);
    const run = client.run("hi", { toolkit: await createToolkit({ tools: [add] }) });
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow(/connection|closed|terminated|socket|mid-reply/i);
    await everyScopeClosed(runtime, events);
    const agentEnd = events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "agent")!;
    expect((agentEnd.metadata as Record<string, string>)["otel.status_code"]).toBe("ERROR");
  });

  it("sends a body that is not JSON", async () => {
    const url = await provider(json(200, "<html>gateway says hi</html>"));
    const { runtime, events, client } = setup(url);
    const run = client.run("hi", { toolkit: await createToolkit({}) });
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow(/JSON/);
    await expect(run).rejects.toThrow(/gateway says hi/);
    await everyScopeClosed(runtime, events);
  });

  it("ends an SSE stream before it is complete", async () => {
    const url = await provider((_i, _req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        'data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"hel"}}]}\n\ndata: {"id":"x","choices":[{"index":0,"delta":{"content":"lo"',
      );
    });
    const { runtime, events, client } = setup(url);
    const seen: string[] = [];
    const consume = async () => {
      for await (const e of client.stream("hi", { toolkit: await createToolkit({}) })) seen.push(e.type);
    };
    await expect(consume()).rejects.toThrow(/ended before \[DONE\]|truncat|closed/i);
    expect(seen).not.toContain("done");
    await everyScopeClosed(runtime, events);
  });

  it("calls a tool with arguments that are not JSON: an error tool result, the run goes on", async () => {
    const url = await provider((i, req, res, body) => {
      const reply =
        i === 0
          ? {
              model: "m",
              choices: [
                {
                  index: 0,
                  finish_reason: "tool_calls",
                  message: {
                    role: "assistant",
                    content: null,
                    tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: '{"a": 2, "b":' } }],
                  },
                },
              ],
            }
          : { model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "sorry" } }] };
      json(200, JSON.stringify(reply))(i, req, res, body);
    });
    const { runtime, events, client } = setup(url);
    const result = await client.run("hi", { toolkit: await createToolkit({ tools: [add] }) });
    expect(result.status).toBe("done");
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.isError).toBe(true);
    expect(result.toolCalls[0]!.output).toBe('invalid arguments for add: not valid JSON ({"a": 2, "b":)');
    await everyScopeClosed(runtime, events);
  });
});
