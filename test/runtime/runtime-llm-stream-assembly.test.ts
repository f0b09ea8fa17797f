import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../src/events/json.js";
import { codecForDialect, type WireStreamEvent } from "../../src/wire/index.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { allWireFixtures } from "../support/wire-fixtures.js";

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

const frame = (e: WireStreamEvent): string => `${e.event !== undefined ? `event: ${e.event}\n` : ""}data: ${e.data}\n\n`;

interface SseServer {
  url: string;
  /** Drops the connection of the request being answered (it has written what it was told to). */
  cut(): void;
}

/** A real provider on 127.0.0.1 that writes SSE frames; with `hold`, it writes only those and keeps the connection open. */
async function sseServer(events: readonly WireStreamEvent[], hold = false): Promise<SseServer> {
  let open: ServerResponse | undefined;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const e of events) res.write(frame(e));
    if (hold) open = res;
    else res.end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, cut: () => open?.socket?.destroy() };
}

/**
 * The provider call: the response body's raw bytes, as they arrive. With `cutAfter`, once that many
 * bytes are in, the server drops the connection (the client has them all, so what is recorded is known).
 */
function rawBytes(url: string, cutAfter?: { bytes: number; cut: () => void }) {
  return async function* (_request: unknown, ctx: { signal: AbortSignal }): AsyncGenerator<Uint8Array> {
    const response = await fetch(url, { signal: ctx.signal });
    let received = 0;
    for await (const piece of response.body!) {
      received += (piece as Uint8Array).byteLength;
      yield piece as Uint8Array;
      if (cutAfter !== undefined && received >= cutAfter.bytes) cutAfter.cut();
    }
  };
}

const request = { headers: {}, content: { model: "m", stream: true } };

describe.each(allWireFixtures())("a managed stream of $dialect records the assembled reply", (f) => {
  const codec = codecForDialect(f.dialect);
  const whole = codec.decodeResponse(f.response, true);

  async function run(url: string, options: { cutAfter?: { bytes: number; cut: () => void }; assemble?: "chunks" } = {}) {
    const { rt, settle } = capturingRuntime();
    const chunks: Json[] = [];
    let error: unknown;
    try {
      const stream = rt.executeLlmStream(codec.eventName, request, rawBytes(url, options.cutAfter), {
        dataSchema: codec.schema,
        ...(options.assemble ? { assemble: options.assemble } : {}),
      });
      for await (const chunk of stream) chunks.push(Buffer.from(chunk).toString("utf8"));
    } catch (e) {
      error = e;
    }
    const end = scopes(await settle()).find((e) => e.scope_category === "end")!;
    return { end, error, metadata: end.metadata as JsonObject, chunks };
  }

  it("by default: the response a non-streaming call records (text, usage, finish), not the chunks", async () => {
    const srv = await sseServer(f.stream);
    const { end, metadata } = await run(srv.url);
    expect(metadata["otel.status_code"]).toBe("OK");
    expect(metadata["relaytrace.stream_incomplete"]).toBeUndefined();
    expect(Array.isArray(end.data)).toBe(false);
    const got = codec.decodeResponse(end.data, true);
    expect([got.text, got.finish, got.usage?.inputTokens, got.usage?.outputTokens, got.model]).toEqual([
      whole.text,
      whole.finish,
      whole.usage?.inputTokens,
      whole.usage?.outputTokens,
      whole.model,
    ]);
  });

  it("tool calls keep their whole arguments", async () => {
    const reply = codec.decodeResponse(f.toolResponse, true);
    const srv = await sseServer(codec.encodeStream(reply));
    const { end } = await run(srv.url);
    const got = codec.decodeResponse(end.data, true);
    expect(got.toolCalls.map((c) => [c.id, c.name, c.input])).toEqual(reply.toolCalls.map((c) => [c.id, c.name, c.input]));
    expect(got.finish).toBe("tool_calls");
  });

  it('assemble: "chunks" records the raw chunks as before', async () => {
    const srv = await sseServer(f.stream);
    const { end, chunks } = await run(srv.url, { assemble: "chunks" });
    expect(Array.isArray(end.data)).toBe(true);
    expect((end.data as unknown[]).length).toBe(chunks.length);
  });

  it("a connection cut mid-stream: an error end with what was assembled, marked incomplete", async () => {
    // the events up to the first one that carries text, then the connection drops
    let k = 1;
    while (codec.decodeResponse(codec.encodeResponse(assembleHead(k))).text === "") k++;
    const head = f.stream.slice(0, k);
    const srv = await sseServer(head, true);
    const bytes = Buffer.byteLength(head.map(frame).join(""));
    const { end, error, metadata } = await run(srv.url, { cutAfter: { bytes, cut: srv.cut } });
    expect(error).toBeDefined();
    expect(metadata["otel.status_code"]).toBe("ERROR");
    expect(metadata["relaytrace.stream_incomplete"]).toMatch(/ended before/);
    const text = codec.decodeResponse(end.data).text;
    expect(text.length).toBeGreaterThan(0);
    expect(whole.text.startsWith(text)).toBe(true);
  });

  it("a stream that ends early without an error: an OK end that says it is incomplete", async () => {
    const srv = await sseServer(f.stream.slice(0, 1));
    const { metadata } = await run(srv.url);
    expect(metadata["otel.status_code"]).toBe("OK");
    expect(metadata["relaytrace.stream_incomplete"]).toMatch(/ended before/);
  });

  function assembleHead(k: number) {
    const assembler = codec.streamAssembler();
    for (const e of f.stream.slice(0, k)) assembler.push(e);
    return assembler.result();
  }
});

describe("the response sanitizers", () => {
  it("also govern what a cut stream records", async () => {
    const f = allWireFixtures()[0]!;
    const codec = codecForDialect(f.dialect);
    const srv = await sseServer(f.stream.slice(0, 2), true);
    const { rt, settle } = capturingRuntime();
    rt.registerLlmSanitizeResponse("redact", 1, () => ({ redacted: true }));
    const bytes = Buffer.byteLength(f.stream.slice(0, 2).map(frame).join(""));
    await expect(async () => {
      for await (const _ of rt.executeLlmStream(codec.eventName, request, rawBytes(srv.url, { bytes, cut: srv.cut }))) void _;
    }).rejects.toThrow();
    const end = scopes(await settle()).find((e) => e.scope_category === "end")!;
    expect(end.data).toEqual({ redacted: true });
  });
});

describe("the assemble option", () => {
  it('is refused, naming it, when it is neither a function nor "chunks"', () => {
    const { rt } = capturingRuntime();
    expect(() => rt.executeLlmStream("x", request, async function* () {}, { assemble: "raw" as never })).toThrow(
      /assemble must be a function or "chunks"/,
    );
  });
});
