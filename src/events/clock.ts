/** A source of wall-clock time in integer microseconds since the Unix epoch. */
export interface Clock {
  nowUs(): number;
}

// Read once: `performance.timeOrigin` is a getter, and the clock runs twice per traced call.
const TIME_ORIGIN_MS = performance.timeOrigin;

/** The process clock: wall time anchored once, advanced by the monotonic high-resolution timer. */
export const systemClock: Clock = {
  nowUs: () => Math.floor((TIME_ORIGIN_MS + performance.now()) * 1000),
};

/**
 * Wraps a clock so readings never go backwards: a reading smaller than the previous one is
 * replaced by the previous one. Event order and `end >= start + 1 µs` rely on this.
 */
export class MonotonicClock implements Clock {
  private last = 0;
  constructor(private readonly source: Clock = systemClock) {}

  nowUs(): number {
    const now = this.source.nowUs();
    if (now > this.last) this.last = now;
    return this.last;
  }

  /**
   * No later reading is below `us`: an end stamped ahead of the source (a coarse clock, where
   * an end is clamped to its start + 1 µs) keeps whatever ends after it, its parent's end
   * included, at or after it.
   */
  raiseTo(us: number): void {
    if (us > this.last) this.last = us;
  }
}
