import type { AtofLine } from "../../src/events/atof-lines.js";

export type { AtofLine };

const NEWLINE = 0x0a;
/** Capacity a buffer starts with and shrinks back to after a write. */
const INITIAL_BYTES = 64 * 1024;
/** Capacity kept between batches; past it the buffer is reallocated small after a write, not retained. */
const RETAINED_BYTES = 1024 * 1024;
/**
 * Lines that surely fit wait as text and are encoded together, this many at a time: one encode
 * call (and one flattening of the joined text) per batch instead of one per line.
 */
const LINES_PER_ENCODE = 64;
/**
 * Longest line that waits as text: a longer one is copied into the buffer at once, so that V8
 * never holds it as one string of hundreds of KB (allocated outside the young generation).
 */
const PENDING_MAX_LENGTH = 16 * 1024;

/** UTF-16 code units in `line`. */
export function lineLength(line: AtofLine): number {
  if (typeof line === "string") return line.length;
  let length = 0;
  for (const piece of line) length += piece.length;
  return length;
}

/** UTF-8 bytes of `line`. */
export function lineBytes(line: AtofLine): number {
  if (typeof line === "string") return Buffer.byteLength(line, "utf8");
  let bytes = 0;
  for (const piece of line) bytes += Buffer.byteLength(piece, "utf8");
  return bytes;
}

/**
 * Bounded FIFO of lines held as UTF-8 bytes, each ended by `\n`. A line is encoded once, as it
 * arrives, into one growing buffer: a batch is then written with no join and no second copy, and
 * the line's string dies young instead of waiting for the write in the old generation.
 * JSON text never holds a raw line feed, so the `\n` bytes alone mark where lines end.
 */
export class LineBuffer {
  private bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  private used = 0;
  private lines = 0;
  /** Text of the newest lines, each ended by `\n`, not encoded yet (counted in `lines`). */
  private pending = "";
  private pendingLines = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  /**
   * Adds one line (JSON text without its line end, whole or as pieces); false (nothing added)
   * when the buffer is full.
   */
  push(line: AtofLine): boolean {
    if (this.lines >= this.maxLines) return false;
    const length = typeof line === "string" ? line.length : lineLength(line);
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: a line that surely fits (in the room there
    // is and within the bound) joins the pending text; only a line that may not fit is measured.
    const pendingChars = this.pending.length + length + 1;
    if (
      length <= PENDING_MAX_LENGTH &&
      this.used + pendingChars * 3 <= this.bytes.length &&
      this.used + pendingChars * 3 <= this.maxBytes
    ) {
      this.pending = this.pending + (typeof line === "string" ? line : line.join("")) + "\n";
      this.lines++;
      if (++this.pendingLines >= LINES_PER_ENCODE) this.encodePending();
      return true;
    }
    this.encodePending();
    // Within the bound for sure (a code unit takes at most 3 bytes), or measured when it may not be.
    if (this.lines > 0 && this.used + length * 3 + 1 > this.maxBytes && this.used + lineBytes(line) + 1 > this.maxBytes) return false;
    // A long line is copied in as it is, piece by piece; a piece is measured only when its upper
    // bound passes the end of the buffer (then the buffer grows to hold it and the line end).
    let end = this.used;
    for (const piece of typeof line === "string" ? [line] : line) {
      if (end + piece.length * 3 + 1 > this.bytes.length) {
        const size = Buffer.byteLength(piece, "utf8") + 1;
        if (end + size > this.bytes.length) this.grow(end + size, end);
      }
      end += this.bytes.write(piece, end, "utf8");
    }
    this.bytes[end] = NEWLINE;
    this.used = end + 1;
    this.lines++;
    return true;
  }

  /** Half full: time to write synchronously rather than wait for an event-loop turn that may not come. */
  get pastHighWater(): boolean {
    return this.lines * 2 >= this.maxLines || (this.used + this.pending.length) * 2 >= this.maxBytes;
  }

  /** Lines held. */
  get length(): number {
    return this.lines;
  }

  /**
   * Removes every held line and returns their bytes: a view of the buffer, valid only until the
   * next `push` (the caller writes it synchronously).
   */
  takeAll(): { bytes: Buffer; lines: number } {
    this.encodePending();
    const taken = { bytes: this.bytes.subarray(0, this.used), lines: this.lines };
    this.used = 0;
    this.lines = 0;
    // A burst's large buffer is dropped rather than held for the life of the process.
    if (this.bytes.length > RETAINED_BYTES) this.bytes = Buffer.allocUnsafe(INITIAL_BYTES);
    return taken;
  }

  /** Removes up to `max` oldest lines and returns a copy of their bytes. */
  take(max: number): { bytes: Buffer; lines: number } {
    this.encodePending();
    if (max >= this.lines) {
      const all = this.takeAll();
      return { bytes: Buffer.from(all.bytes), lines: all.lines };
    }
    let end = 0;
    for (let i = 0; i < max; i++) end = this.bytes.indexOf(NEWLINE, end) + 1;
    const bytes = Buffer.from(this.bytes.subarray(0, end));
    this.bytes.copyWithin(0, end, this.used);
    this.used -= end;
    this.lines -= max;
    return { bytes, lines: max };
  }

  /** Encodes the pending lines after the others (`push` made sure there is room). */
  private encodePending(): void {
    if (this.pendingLines === 0) return;
    this.used += this.bytes.write(this.pending, this.used, "utf8");
    this.pending = "";
    this.pendingLines = 0;
  }

  /** Replaces the buffer with one of at least `needed` bytes holding its first `keep`. */
  private grow(needed: number, keep: number): void {
    const next = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, keep);
    this.bytes = next;
  }
}

/** Whole lines at the start of `bytes[0, written)`: how many, and how many bytes they take. */
export function wholeLinesIn(bytes: Buffer, written: number): { lines: number; bytes: number } {
  const end = written > 0 ? bytes.lastIndexOf(NEWLINE, written - 1) + 1 : 0;
  let lines = 0;
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < end; at = bytes.indexOf(NEWLINE, at + 1)) lines++;
  return { lines, bytes: end };
}
