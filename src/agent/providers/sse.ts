import type { SseEvent } from "./types.js";

/**
 * Server-sent events line parser. Handles `event:` and `data:` fields, multi-line data
 * (joined with "\n"), comments, and LF / CRLF / CR line ends split across chunks.
 * `[DONE]` is passed through as an ordinary data event: the codec decides what ends a stream.
 *
 * Linear in the stream's size: each chunk is scanned once, and the unfinished line is kept as
 * a list of pieces joined only when its end arrives (a long unterminated line is never rescanned).
 * The size of one line is bounded by the transport's response-size cap, which counts every byte.
 */
export async function* parseSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent, void> {
  const decoder = new TextDecoder();
  let pieces: string[] = [];
  // The previous chunk ended in CR: an LF that starts the next chunk belongs to that line end.
  let pendingCr = false;
  let event: string | undefined;
  let data: string[] = [];

  const take = (): SseEvent | undefined => {
    const out = data.length > 0 ? (event !== undefined ? { event, data: data.join("\n") } : { data: data.join("\n") }) : undefined;
    event = undefined;
    data = [];
    return out;
  };

  const feed = (line: string): SseEvent | undefined => {
    if (line === "") return take();
    if (line.charCodeAt(0) === 58 /* : */) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    return undefined;
  };

  const endLine = (tail: string): SseEvent | undefined => {
    const line = pieces.length === 0 ? tail : (pieces.push(tail), pieces.join(""));
    pieces = [];
    return feed(line);
  };

  for await (const chunk of chunks) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    if (pendingCr) {
      pendingCr = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    for (let i = start; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const out = endLine(text.slice(start, i));
      if (ch === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          pendingCr = true;
        }
      }
      start = i + 1;
      if (out !== undefined) yield out;
    }
    if (start < text.length) pieces.push(text.slice(start));
  }
  const rest = decoder.decode();
  if (rest !== "") pieces.push(rest);
  // An event whose complete data lines arrived without the closing blank line is still delivered;
  // a dangling partial line (no line end) is dropped — the codec then reports the truncation.
  const last = take();
  if (last !== undefined) yield last;
}
