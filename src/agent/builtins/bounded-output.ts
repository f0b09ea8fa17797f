/**
 * A command's output kept within bounds however much it writes: the first `headBytes` and the
 * last `tailBytes`, and a count of what lies between. Memory stays bounded by the two limits plus
 * one chunk; nothing is ever joined into one huge string.
 */
export class BoundedOutput {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const taken = rest.subarray(0, this.headBytes - this.headSize);
      this.head.push(Buffer.from(taken));
      this.headSize += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push(Buffer.from(rest));
    this.tailSize += rest.length;
    // Drop whole old chunks while the newer ones still cover the tail; the last cut is made in text().
    while (this.tail.length > 1 && this.tailSize - this.tail[0]!.length >= this.tailBytes) this.tailSize -= this.tail.shift()!.length;
  }

  /** Bytes written in all. */
  get bytes(): number {
    return this.total;
  }

  /** The kept text: head, a marker saying how many bytes were dropped (if any), tail. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailBytes) tail = tail.subarray(tail.length - this.tailBytes);
    const dropped = this.total - this.headSize - tail.length;
    if (dropped === 0) return head + tail.toString("utf8");
    return `${head}\n[... ${dropped} bytes of output dropped (${this.total} in all) ...]\n${tail.toString("utf8")}`;
  }
}
