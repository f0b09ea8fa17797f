import type { JsonObject } from "../events/json.js";
import { parseSseText } from "./sse.js";
import type { WireCodec, WireStreamEvent } from "./types.js";

/** A streamed reply put back together. */
export interface AssembledStream {
  /** the reply in the dialect's non-streaming response shape: what a non-streaming call records */
  response: JsonObject;
  /** why the stream is not whole (it ended, or broke, before its terminal event); undefined when it is */
  incomplete?: string;
}

const decoder = new TextDecoder();

const isWireEvent = (chunk: unknown): chunk is WireStreamEvent =>
  typeof chunk === "object" &&
  chunk !== null &&
  typeof (chunk as { data?: unknown }).data === "string" &&
  Object.keys(chunk).every((k) => k === "data" || k === "event");

const looksLikeSse = (text: string): boolean => /^(?:data|event):/m.test(text);

/**
 * A caller's chunks as stream events, whatever form they take: `{event?, data}` events as is;
 * decoded objects (an SDK's chunk or event objects) as their JSON, named by their `type`; raw
 * bytes or text as server-sent events (joined first, since a chunk may end inside a line); text
 * that is not SSE as one event's data (a JSON chunk, `[DONE]`).
 */
export function streamEventsOf(chunks: readonly unknown[]): WireStreamEvent[] {
  if (chunks.length > 0 && chunks.every((c) => typeof c === "string" || c instanceof Uint8Array)) {
    const texts = chunks.map((c) => (typeof c === "string" ? c : decoder.decode(c as Uint8Array)));
    const joined = texts.join("");
    if (looksLikeSse(joined)) return parseSseText(joined);
    return texts.map((data) => ({ data }));
  }
  const events: WireStreamEvent[] = [];
  for (const chunk of chunks) {
    if (isWireEvent(chunk)) events.push(chunk);
    else if (typeof chunk === "string") events.push(...(looksLikeSse(chunk) ? parseSseText(chunk) : [{ data: chunk }]));
    else if (chunk instanceof Uint8Array) events.push(...parseSseText(decoder.decode(chunk)));
    else if (typeof chunk === "object" && chunk !== null) {
      const type = (chunk as { type?: unknown }).type;
      events.push(typeof type === "string" ? { event: type, data: JSON.stringify(chunk) } : { data: JSON.stringify(chunk) });
    }
  }
  return events;
}

/**
 * Assembles a stream's chunks with the dialect's own stream decoder into the response body a
 * non-streaming call of that dialect returns: text, reasoning, tool calls with their whole
 * arguments, usage, finish reason. A stream that stopped early (no terminal event, or an error
 * event) gives what had arrived, with the reason in `incomplete`. Throws WireShapeError when
 * even that cannot be assembled (a tool call that never got its id or name).
 */
export function assembleStream(codec: WireCodec, chunks: readonly unknown[]): AssembledStream {
  const assembler = codec.streamAssembler();
  let broke: string | undefined;
  for (const event of streamEventsOf(chunks)) {
    try {
      assembler.push(event);
    } catch (error) {
      broke = error instanceof Error ? error.message : String(error);
      break;
    }
    if (assembler.finished) break;
  }
  const response = codec.encodeResponse(assembler.result());
  const incomplete = broke ?? assembler.incomplete();
  return incomplete === undefined ? { response } : { response, incomplete };
}
