import type { SseEvent } from "./types.js";

/**
 * Server-sent events line parser. Handles `event:` and `data:` fields, multi-line data
 * (joined with "\n"), comments, and LF / CRLF / CR line ends split across chunks.
 * `[DONE]` is passed through as an ordinary data event: the codec decides what ends a stream.
 */
export async function* parseSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent, void> {
  const decoder = new TextDecoder();
  let buffer = "";
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
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer[i];
      if (ch !== "\n" && ch !== "\r") continue;
      // A CR at the very end may be the first half of a CRLF in the next chunk: wait for it.
      if (ch === "\r" && i === buffer.length - 1) break;
      const out = feed(buffer.slice(start, i));
      if (ch === "\r" && buffer[i + 1] === "\n") i++;
      start = i + 1;
      if (out !== undefined) yield out;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.endsWith("\r")) {
    const out = feed(buffer.slice(0, -1));
    buffer = "";
    if (out !== undefined) yield out;
  }
  // An event whose complete data lines arrived without the closing blank line is still delivered;
  // a dangling partial line (no line end) is dropped — the codec then reports the truncation.
  const last = take();
  if (last !== undefined) yield last;
}
