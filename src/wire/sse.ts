import type { WireStreamEvent } from "./types.js";

/**
 * Server-sent events line parser, fed text as it arrives. Handles `event:` and `data:` fields,
 * multi-line data (joined with "\n"), comments, and LF / CRLF / CR line ends split across
 * chunks. `[DONE]` is passed through as an ordinary data event: the codec decides what ends a
 * stream.
 *
 * Linear in the stream's size: each chunk is scanned once, and the unfinished line is kept as a
 * list of pieces joined only when its end arrives (a long unterminated line is never rescanned).
 */
export class SseParser {
  private pieces: string[] = [];
  /** The previous chunk ended in CR: an LF that starts the next chunk belongs to that line end. */
  private pendingCr = false;
  private event: string | undefined;
  private data: string[] = [];

  /** The events the text completes, in order. */
  push(text: string): WireStreamEvent[] {
    const out: WireStreamEvent[] = [];
    let start = 0;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    for (let i = start; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const event = this.endLine(text.slice(start, i));
      if (ch === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      if (event !== undefined) out.push(event);
    }
    if (start < text.length) this.pieces.push(text.slice(start));
    return out;
  }

  /**
   * The stream ended: an event whose complete data lines arrived without the closing blank line
   * is still delivered; a dangling partial line (no line end) is dropped, and the codec then
   * reports the truncation.
   */
  end(): WireStreamEvent | undefined {
    this.pieces = [];
    return this.take();
  }

  private take(): WireStreamEvent | undefined {
    const data = this.data;
    const out =
      data.length > 0 ? (this.event !== undefined ? { event: this.event, data: data.join("\n") } : { data: data.join("\n") }) : undefined;
    this.event = undefined;
    this.data = [];
    return out;
  }

  private endLine(tail: string): WireStreamEvent | undefined {
    const line = this.pieces.length === 0 ? tail : (this.pieces.push(tail), this.pieces.join(""));
    this.pieces = [];
    if (line === "") return this.take();
    if (line.charCodeAt(0) === 58 /* : */) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    return undefined;
  }
}

/** Whole server-sent event text (any line ends) as its events; a last line without its line end still counts. */
export function parseSseText(text: string): WireStreamEvent[] {
  const parser = new SseParser();
  const events = parser.push(`${text}\n`);
  const last = parser.end();
  if (last !== undefined) events.push(last);
  return events;
}
