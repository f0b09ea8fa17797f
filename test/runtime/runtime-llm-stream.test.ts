import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../src/events/json.js";
import { GuardrailRejectedError } from "../../src/runtime/errors.js";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { capturingRuntime, labels, scopes } from "../support/capture.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

/** A real server on 127.0.0.1 that writes one newline-terminated chunk every `gapMs`, then ends (or breaks the socket). */
async function chunkServer(chunks: string[], gapMs: number, breakAfter?: number): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    let i = 0;
    const tick = () => {
      if (breakAfter !== undefined && i === breakAfter) return res.socket?.destroy();
      if (i === chunks.length) return res.end();
      res.write(`${chunks[i++]}\n`);
      setTimeout(tick, gapMs);
    };
    setTimeout(tick, gapMs);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** The provider call of a stream: fetch the URL and yield each line as a parsed JSON chunk. */
function linesOf(url: string) {
  return async function* (_request: unknown, ctx: { signal: AbortSignal }): AsyncGenerator<Json> {
    const response = await fetch(url, { signal: ctx.signal });
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const piece of response.body!) {
      buffered += decoder.decode(piece as Uint8Array, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        yield JSON.parse(buffered.slice(0, newline)) as Json;
        buffered = buffered.slice(newline + 1);
      }
    }
  };
}

const request = { headers: {}, content: { model: "m", stream: true } };
const parts = ['{"delta":"Hel"}', '{"delta":"lo"}', '{"delta":"!"}'];
const text = (chunks: readonly Json[]) => ({ text: chunks.map((c) => (c as JsonObject).delta).join("") });

describe("runtime.executeLlmStream", () => {
  it("passes every chunk to the caller and records time to first chunk and the assembled response", async () => {
    const url = await chunkServer(parts, 30);
    const { rt, settle } = capturingRuntime();
    const received: Json[] = [];
    for await (const chunk of rt.executeLlmStream("openai.chat_completions", request, linesOf(url), { modelName: "m", assemble: text }))
      received.push(chunk);
    expect(received).toEqual(parts.map((p) => JSON.parse(p)));
    const events = await settle();
    expect(labels(events)).toEqual(["start:llm:openai.chat_completions", "end:llm:openai.chat_completions"]);
    const [start, end] = scopes(events);
    expect(start!.attributes).toContain("streaming");
    expect(end!.data).toEqual({ text: "Hello!" });
    const metadata = end!.metadata as JsonObject;
    expect(metadata["otel.status_code"]).toBe("OK");
    // The first chunk leaves the server one gap (30 ms) after the request; the whole stream takes three.
    const ttfc = metadata["time_to_first_chunk_ms"] as number;
    expect(ttfc).toBeGreaterThanOrEqual(25);
    const totalMs = Date.parse(end!.timestamp as string) - Date.parse(start!.timestamp as string);
    expect(ttfc).toBeLessThan(totalMs);
  });

  it("a very long stream records a bounded end: the first 1,000 gaps between chunks, and how many more there were", async () => {
    const { rt, settle } = capturingRuntime();
    async function* many(): AsyncGenerator<Json> {
      for (let i = 0; i < 1500; i++) yield { i };
    }
    for await (const _ of rt.executeLlmStream("my.model", request, () => many(), { assemble: () => null })) void _;
    const end = scopes(await settle())[1]!;
    const metadata = end.metadata as JsonObject;
    expect((metadata["time_per_output_chunk_ms"] as number[]).length).toBe(1000);
    expect(metadata["time_per_output_chunk_omitted"]).toBe(499);
  });

  it('with assemble: "chunks", or for a call of no known dialect, the end records the chunks themselves', async () => {
    const url = await chunkServer(parts, 1);
    const { rt, settle } = capturingRuntime();
    for await (const _ of rt.executeLlmStream("openai.chat_completions", request, linesOf(url), { assemble: "chunks" })) void _;
    for await (const _ of rt.executeLlmStream("my.model", request, linesOf(url))) void _;
    const ends = scopes(await settle()).filter((e) => e.scope_category === "end");
    expect(ends.map((e) => e.data)).toEqual([parts.map((p) => JSON.parse(p)), parts.map((p) => JSON.parse(p))]);
  });

  it("stream execution intercepts observe and transform chunks; the caller and the end see the transformed ones", async () => {
    const url = await chunkServer(parts, 1);
    const { rt, settle } = capturingRuntime();
    const observed: unknown[] = [];
    rt.registerLlmStreamExecutionIntercept("observe", 1, async function* (req, next) {
      for await (const chunk of next(req)) {
        observed.push(chunk);
        yield chunk;
      }
    });
    rt.registerLlmStreamExecutionIntercept("shout", 2, async function* (req, next) {
      for await (const chunk of next(req)) yield { delta: String((chunk as JsonObject).delta).toUpperCase() };
    });
    const received: Json[] = [];
    for await (const chunk of rt.executeLlmStream("openai.chat_completions", request, linesOf(url), { assemble: text }))
      received.push(chunk);
    expect(received).toEqual([{ delta: "HEL" }, { delta: "LO" }, { delta: "!" }]);
    expect(observed).toEqual(received); // "observe" (priority 1) is outermost: it sees what "shout" made
    expect(scopes(await settle())[1]!.data).toEqual({ text: "HELLO!" });
  });

  it("a caller that stops early ends the call once as cancelled and closes the provider stream", async () => {
    const url = await chunkServer(parts, 5);
    const { rt, settle } = capturingRuntime();
    let sourceClosed!: () => void;
    const closed = new Promise<void>((resolve) => (sourceClosed = resolve));
    const source = linesOf(url);
    const tracked = async function* (req: unknown, ctx: { signal: AbortSignal }) {
      try {
        yield* source(req, ctx);
      } finally {
        sourceClosed();
      }
    };
    for await (const _ of rt.executeLlmStream("openai.chat_completions", request, tracked)) break;
    const ends = scopes(await settle()).filter((e) => e.scope_category === "end");
    expect(ends).toHaveLength(1);
    expect(ends[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR", "otel.status_description": "llm call cancelled" });
    await closed; // the provider stream is closed (a stream never closed fails on the test's timeout)
  });

  it("a provider stream that breaks mid-way ends the call with the error and rethrows it", async () => {
    const url = await chunkServer(parts, 5, 1);
    const { rt, settle } = capturingRuntime();
    const received: Json[] = [];
    const failure = await (async () => {
      for await (const chunk of rt.executeLlmStream("openai.chat_completions", request, linesOf(url))) received.push(chunk);
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(received).toEqual([JSON.parse(parts[0]!)]);
    const end = scopes(await settle())[1]!;
    expect(end.metadata).toMatchObject({ "otel.status_code": "ERROR", "otel.status_description": (failure as Error).message });
  });

  it("an abort ends the stream as cancelled and rejects with the reason", async () => {
    const url = await chunkServer(parts, 50);
    const { rt, settle } = capturingRuntime();
    const controller = new AbortController();
    const failure = await (async () => {
      for await (const _ of rt.executeLlmStream("openai.chat_completions", request, linesOf(url), { signal: controller.signal }))
        controller.abort(new Error("user stopped"));
    })().catch((e: unknown) => e);
    expect((failure as Error).message).toBe("user stopped");
    expect(scopes(await settle())[1]!.metadata).toMatchObject({ "otel.status_description": "llm call cancelled" });
  });

  it("guardrails run when iteration starts: a rejection rejects the first next() and opens no llm scope", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerLlmConditionalGuardrail("no-streams", 1, () => "streaming disabled");
    const stream = rt.executeLlmStream("openai.chat_completions", request, async function* () {
      yield 1;
    });
    const iterator = stream[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toBeInstanceOf(GuardrailRejectedError);
    expect(labels(await settle())).toEqual(["start:guardrail:no-streams", "end:guardrail:no-streams", "mark:openai.chat_completions"]);
  });

  it("the provider call gets the real request with a traceparent for the llm scope", async () => {
    const { rt, settle } = capturingRuntime();
    let sent: unknown;
    await rt.withScope(
      "agent",
      async () => {
        for await (const _ of rt.executeLlmStream("openai.chat_completions", request, async function* (req) {
          sent = req.headers;
          yield 1;
        }))
          void _;
      },
      { category: "agent" },
    );
    const llm = scopes(await settle()).find((e) => e.category === "llm")!;
    expect((sent as Record<string, string>).traceparent).toMatch(
      new RegExp(`^00-[0-9a-f]{32}-${llm.uuid.replace(/-/g, "").slice(16)}-01$`),
    );
  });
});

describe("client.stream is a managed stream", () => {
  const provider = scriptedProviders();

  it("its text deltas pass the runtime's stream intercepts, and its llm end records the assembled reply", async () => {
    const p = await provider([{ text: "streamed through the runtime" }]);
    const { rt, settle } = capturingRuntime();
    const intercepted: string[] = [];
    rt.registerLlmStreamExecutionIntercept("watch", 1, async function* (req, next) {
      for await (const delta of next(req)) {
        const d = delta as { type: string; delta?: string };
        if (d.type === "text" && d.delta) intercepted.push(d.delta);
        yield delta;
      }
    });
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: rt });
    let streamed = "";
    for await (const ev of client.stream("hi", { toolkit: await createToolkit() })) if (ev.type === "text") streamed += ev.delta;
    expect(streamed).toBe("streamed through the runtime");
    expect(intercepted.join("")).toBe(streamed);
    const end = scopes(await settle()).find((e) => e.category === "llm" && e.scope_category === "end")!;
    expect(JSON.stringify(end.data)).toContain("streamed through the runtime"); // the reply in the dialect's own shape
    expect((end.metadata as JsonObject)["time_to_first_chunk_ms"]).toEqual(expect.any(Number));
    expect(p.requests[0]!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
