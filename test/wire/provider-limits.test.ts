import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { ProviderResponseError, ProviderTimeoutError } from "../../src/agent/providers/errors.js";
import { parseSse } from "../../src/agent/providers/sse.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A real provider on 127.0.0.1 whose replies are written by `handler`. */
async function serve(handler: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function tracedRuntime() {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => {
    events.push(e);
  });
  return { runtime, events };
}

/** Every scope that started also ended: no span is left open by a failed call. */
function expectBalanced(events: AtofEvent[]): void {
  const open = new Set<string>();
  for (const e of events) {
    if (e.kind !== "scope") continue;
    if (e.scope_category === "start") open.add(e.uuid);
    else open.delete(e.uuid);
  }
  expect(open.size).toBe(0);
}

describe("provider calls are bounded in time and size", () => {
  it("a stream kept open with keep-alive comments forever fails at requestTimeoutMs, and its llm scope ends", async () => {
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const timer = setInterval(() => res.write(": keep-alive\n\n"), 10);
      res.on("close", () => clearInterval(timer));
    });
    const { runtime, events } = tracedRuntime();
    const client = createClient({ baseUrl: url, style: "openai", model: "m", apiKey: "k", runtime, requestTimeoutMs: 300 });
    const consume = async () => {
      for await (const _ of client.stream("hi", { toolkit: await createToolkit({}) })) void _;
    };
    await expect(consume()).rejects.toBeInstanceOf(ProviderTimeoutError);
    await runtime.flush();
    expectBalanced(events);
    const llmEnd = events.find((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end");
    expect(llmEnd?.metadata).toMatchObject({ "otel.status_code": "ERROR" });
  });

  it("a JSON reply larger than maxResponseBytes is refused without buffering it whole", async () => {
    const chunk = Buffer.alloc(64 * 1024, " ");
    let written = 0;
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      // 64 MiB of whitespace before a valid body: the cap must stop reading long before the end
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end('{"choices":[]}');
      };
      res.on("close", () => (written = Number.POSITIVE_INFINITY));
      pump();
    });
    const { runtime, events } = tracedRuntime();
    const client = createClient({
      baseUrl: url,
      style: "openai",
      model: "m",
      apiKey: "k",
      runtime,
      retries: 0,
      maxResponseBytes: 1024 * 1024,
    });
    const failure = await client.run("hi", { toolkit: await createToolkit({}) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderResponseError);
    expect((failure as Error).message).toMatch(/exceeds maxResponseBytes \(1048576 bytes\)/);
    await runtime.flush();
    expectBalanced(events);
  });

  it("a stream larger than maxResponseBytes is cut off with the same error", async () => {
    const delta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "x".repeat(4000) } }] })}\n\n`;
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      let sent = 0;
      const pump = () => {
        while (sent < 2000) {
          sent++;
          if (!res.write(delta)) return void res.once("drain", pump);
        }
        res.end("data: [DONE]\n\n");
      };
      res.on("close", () => (sent = Number.POSITIVE_INFINITY));
      pump();
    });
    const { runtime } = tracedRuntime();
    const client = createClient({ baseUrl: url, style: "openai", model: "m", apiKey: "k", runtime, maxResponseBytes: 256 * 1024 });
    const consume = async () => {
      for await (const _ of client.stream("hi", { toolkit: await createToolkit({}) })) void _;
    };
    await expect(consume()).rejects.toThrow(/exceeds maxResponseBytes/);
  });

  it("requestTimeoutMs and maxResponseBytes are checked at construction", () => {
    expect(() => createClient({ baseUrl: "http://127.0.0.1:1", style: "openai", model: "m", requestTimeoutMs: -1 })).toThrow(
      /requestTimeoutMs/,
    );
    expect(() => createClient({ baseUrl: "http://127.0.0.1:1", style: "openai", model: "m", maxResponseBytes: Number.NaN })).toThrow(
      /maxResponseBytes/,
    );
  });
});

describe("the SSE parser", () => {
  it("assembles a 16 MB line that arrives in 64 KB pieces into one event", async () => {
    const size = 16 * 1024 * 1024;
    async function* pieces(): AsyncGenerator<string> {
      yield "data: ";
      const piece = "y".repeat(64 * 1024);
      for (let sent = 0; sent < size; sent += piece.length) yield piece;
      yield "\r";
      yield "\n\r\n";
    }
    const events = [];
    for await (const event of parseSse(pieces())) events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(size);
  });

  it("keeps CR, LF and CRLF line ends split across chunks apart from line content", async () => {
    async function* pieces(): AsyncGenerator<string> {
      yield "event: a\r";
      yield "\ndata: 1\r";
      yield "data: 2\n";
      yield "\n: comment\r\rdata: 3";
      yield "\n\n";
    }
    const events = [];
    for await (const event of parseSse(pieces())) events.push(event);
    expect(events).toEqual([{ event: "a", data: "1\n2" }, { data: "3" }]);
  });
});
