/** A clock that moves only when read: every `nowUs()` returns the previous reading plus `stepUs`. */
export interface TestClock {
  nowUs(): number;
}

/** 2026-03-01T12:00:00Z in epoch microseconds: a fixed, readable default start. */
export const DEFAULT_TEST_START_US = 1_772_366_400_000_000;

/** A deterministic clock for tests: starts at `startUs` (default 2026-03-01T12:00:00Z) and steps `stepUs` (default 1000) per reading. */
export function createTestClock(options: { startUs?: number; stepUs?: number } = {}): TestClock {
  const step = options.stepUs ?? 1000;
  let next = options.startUs ?? DEFAULT_TEST_START_US;
  return {
    nowUs(): number {
      const now = next;
      next += step;
      return now;
    },
  };
}
