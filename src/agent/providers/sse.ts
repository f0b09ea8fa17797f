import { SseParser } from "../../wire/sse.js";
import type { SseEvent } from "./types.js";

/**
 * Server-sent events from a response body's chunks, as they arrive (the wire layer's SseParser
 * does the parsing). The size of one line is bounded by the transport's response-size cap, which
 * counts every byte.
 */
export async function* parseSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent, void> {
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for await (const chunk of chunks) {
    yield* parser.push(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  }
  const rest = decoder.decode();
  if (rest !== "") yield* parser.push(rest);
  const last = parser.end();
  if (last !== undefined) yield last;
}
