/**
 * Bounded FIFO of serialized, `\n`-terminated lines. The size bound counts UTF-16 code units
 * (string length), a cheap stand-in for bytes that is exact for ASCII payloads.
 */
export class LineBuffer {
  private lines: string[] = [];
  private size = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxSize: number,
  ) {}

  /** Adds a line; false (nothing added) when the buffer is full. */
  push(line: string): boolean {
    if (this.lines.length >= this.maxLines || (this.size + line.length > this.maxSize && this.lines.length > 0)) return false;
    this.lines.push(line);
    this.size += line.length;
    return true;
  }

  /** Half full: time to write synchronously rather than wait for an event-loop turn that may not come. */
  get pastHighWater(): boolean {
    return this.lines.length * 2 >= this.maxLines || this.size * 2 >= this.maxSize;
  }

  get length(): number {
    return this.lines.length;
  }

  /** Removes and returns up to `max` oldest lines. */
  take(max = Infinity): string[] {
    if (max >= this.lines.length) {
      const all = this.lines;
      this.lines = [];
      this.size = 0;
      return all;
    }
    const head = this.lines.splice(0, max);
    for (const line of head) this.size -= line.length;
    return head;
  }
}
