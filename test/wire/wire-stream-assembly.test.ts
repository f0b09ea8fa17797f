import { describe, expect, it } from "vitest";
import { codecForDialect, type WireStreamEvent, type WireUsage } from "../../src/wire/index.js";
import { assembleStream, streamEventsOf } from "../../src/wire/stream-assembly.js";
import { allWireFixtures } from "../support/wire-fixtures.js";

/** A stream's events as the SSE text a provider sends. */
const sseText = (events: readonly WireStreamEvent[]): string =>
  events.map((e) => `${e.event !== undefined ? `event: ${e.event}\n` : ""}data: ${e.data}\n\n`).join("");

/** The bytes of a text cut into pieces of `size` bytes: pieces end inside lines and inside UTF-8 characters. */
function bytePieces(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe.each(allWireFixtures())("stream assembly: $dialect", (f) => {
  const codec = codecForDialect(f.dialect);
  const whole = codec.decodeResponse(f.response, true);
  const essentials = (body: unknown) => {
    const r = codec.decodeResponse(body, true);
    return { text: r.text, finish: r.finish, usage: counts(r.usage), model: r.model, id: r.id };
  };
  // The recorded stream and body differ only in provider extras beside the counts.
  const counts = (u: WireUsage | undefined) => (u === undefined ? undefined : { ...u, extra: undefined });

  it("gives the reply a non-streaming call records, from events, from raw SSE bytes and from decoded chunk objects", () => {
    const expected = { text: whole.text, finish: whole.finish, usage: counts(whole.usage), model: whole.model, id: whole.id };
    const forms: unknown[][] = [
      f.stream,
      bytePieces(sseText(f.stream), 7),
      f.stream.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data)),
    ];
    for (const chunks of forms) {
      const { response, incomplete } = assembleStream(codec, chunks);
      expect(incomplete).toBeUndefined();
      expect(essentials(response)).toEqual(expected);
      expect(response).toEqual(codec.encodeResponse(codec.decodeResponse(response, true)));
    }
  });

  it("keeps every tool call with its whole arguments", () => {
    const reply = codec.decodeResponse(f.toolResponse, true);
    const { response } = assembleStream(codec, bytePieces(sseText(codec.encodeStream(reply)), 5));
    const back = codec.decodeResponse(response, true);
    expect(back.toolCalls.map((c) => [c.id, c.name, c.arguments, c.input])).toEqual(
      reply.toolCalls.map((c) => [c.id, c.name, c.arguments, c.input]),
    );
    expect(back.finish).toBe("tool_calls");
  });

  it("a stream cut before its end gives what had arrived and says why", () => {
    // up to the first event that carries text: more follows, and the terminal event is missing
    let k = 1;
    while (codec.decodeResponse(assembleStream(codec, f.stream.slice(0, k)).response).text === "") k++;
    expect(k).toBeLessThan(f.stream.length);
    const { response, incomplete } = assembleStream(codec, f.stream.slice(0, k));
    expect(incomplete).toMatch(/ended before/);
    const text = codec.decodeResponse(response).text;
    expect(text.length).toBeGreaterThan(0);
    expect(whole.text.startsWith(text)).toBe(true);
  });

  it("an error event ends the assembly there, and says so", () => {
    const error =
      f.dialect === "anthropic"
        ? { event: "error", data: JSON.stringify(f.error) }
        : { data: JSON.stringify(f.dialect === "openai-responses" ? { type: "error", message: "Incorrect API key provided." } : f.error) };
    const { incomplete } = assembleStream(codec, [f.stream[0]!, error, ...f.stream.slice(1)]);
    expect(incomplete).toMatch(/error/i);
  });
});

describe("streamEventsOf", () => {
  it("reads CRLF SSE text, skips comments, and passes JSON text chunks through as data", () => {
    expect(streamEventsOf([': keep-alive\r\nevent: a\r\ndata: {"x":1}\r\n\r\ndata: [DONE]\r\n\r\n'])).toEqual([
      { event: "a", data: '{"x":1}' },
      { data: "[DONE]" },
    ]);
    expect(streamEventsOf(['{"x":1}', "[DONE]"])).toEqual([{ data: '{"x":1}' }, { data: "[DONE]" }]);
  });
});
