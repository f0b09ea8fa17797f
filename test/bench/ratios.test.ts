import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs module of the bench harness, without types
import {
  decided,
  extraAllowance,
  extraRounds,
  medianInterval,
  perRoundRatios,
  summarizeRatios,
  targetRow,
} from "../../bench/lib/ratios.mjs";

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("bench targets: per-round ratios", () => {
  it("divides round by round and leaves out rounds whose reference is not positive or that cannot be read", () => {
    expect(perRoundRatios([2, 3, 4, 5], [4, 0, 8, 10])).toEqual([0.5, 0.5, 0.5]);
    expect(perRoundRatios([2, NaN, 4], [4, 1, NaN])).toEqual([0.5]);
  });

  it("summarizes the median, its interval, min–max and met / not met against the limit", () => {
    const s = summarizeRatios([0.9, 0.5, 0.7, 0.6, 1.2], 0.8);
    expect(s).toMatchObject({ median: 0.7, lo: 0.5, hi: 1.2, min: 0.5, max: 1.2, rounds: 5, total: 5, limit: 0.8, met: true });
    expect(summarizeRatios([0.9, 0.85, 0.7], 0.8).met).toBe(false);
    expect(summarizeRatios([], 0.8).met).toBeUndefined();
  });
});

describe("bench targets: the median's confidence interval", () => {
  it("picks the order statistics of the distribution-free 95 % interval", () => {
    // Ranks from the binomial tables: n = 15 → x(4)..x(12), 20 → x(6)..x(15), 30 → x(10)..x(21), 60 → x(22)..x(39).
    expect(medianInterval(oneTo(15))).toMatchObject({ lo: 4, hi: 12 });
    expect(medianInterval(oneTo(20))).toMatchObject({ lo: 6, hi: 15 });
    expect(medianInterval(oneTo(30))).toMatchObject({ lo: 10, hi: 21 });
    expect(medianInterval(oneTo(60))).toMatchObject({ lo: 22, hi: 39 });
    expect(medianInterval(oneTo(15)).coverage).toBeCloseTo(0.9648, 4);
  });

  it("falls back to min–max with its coverage under 6 rounds, and does not depend on the input order", () => {
    expect(medianInterval([5, 1, 4, 2, 3])).toEqual({ lo: 1, hi: 5, coverage: 0.9375 });
    expect(medianInterval([7]).coverage).toBe(0);
    expect(medianInterval([]).lo).toBeNaN();
  });

  it("narrows as rounds are added, where min–max only widens", () => {
    const spread = (n: number) => {
      const { lo, hi } = medianInterval(oneTo(n).map((i) => (i * 7919) % n));
      return (hi - lo) / n;
    };
    expect(spread(60)).toBeLessThan(spread(15));
  });

  it("calls a pair decided when its interval leaves the target out", () => {
    expect(decided(summarizeRatios([0.5, 0.6, 0.7, 0.6, 0.65, 0.55], 0.8))).toBe(true);
    expect(decided(summarizeRatios([0.5, 0.6, 0.9, 0.6, 0.85, 0.55], 0.8))).toBe(false);
    expect(decided(summarizeRatios([1.5, 1.6, 1.7, 1.6, 1.65, 1.55], 1.3))).toBe(true);
    expect(decided(summarizeRatios([], 1.3))).toBe(false);
  });
});

describe("bench targets: extra rounds", () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (s: number) => void (t += s) };
  };
  const undecided = [0.7, 0.9, 0.75, 0.85, 0.8, 0.78];

  it("adds nothing to a decided pair", () => {
    const rule = extraRounds({ limit: 0.8, batch: 5, maxRounds: 60, seconds: 100 });
    expect(rule.next([0.5, 0.5, 0.5, 0.5, 0.5, 0.5], 6, 1)).toBe(0);
    expect(rule.outcome()).toMatchObject({ added: 0, stop: undefined });
  });

  it("adds batches until the pair is decided", () => {
    const c = clock();
    const rule = extraRounds({ limit: 0.8, batch: 5, maxRounds: 60, seconds: 100 }, c.now);
    expect(rule.next(undecided, 6, 1)).toBe(5);
    c.advance(5);
    expect(rule.next([...undecided, ...Array(10).fill(0.5)], 16, 1)).toBe(0);
    expect(rule.outcome()).toEqual({ added: 5, stop: "decided", seconds: 5 });
  });

  it("stops at the rounds cap, the last batch cut to fit", () => {
    const rule = extraRounds({ limit: 0.8, batch: 5, maxRounds: 8, seconds: 100 });
    expect(rule.next(undecided, 6, 1)).toBe(2);
    expect(rule.next(undecided, 8, 1)).toBe(0);
    expect(rule.outcome()).toMatchObject({ added: 2, stop: "rounds cap" });
  });

  it("stops when the next batch would pass the time allowed, read from the first rounds' time", () => {
    const c = clock();
    const rule = extraRounds({ limit: 0.8, batch: 5, maxRounds: 60, seconds: extraAllowance({ minSeconds: 4, left: 100 }) }, c.now);
    // first rounds: 6 × 2 s = 12 s, so 12 s of extra time: one batch of 5 × 2 s fits, a second does not
    expect(rule.next(undecided, 6, 2)).toBe(5);
    c.advance(10);
    expect(rule.next(undecided, 11, 2)).toBe(0);
    expect(rule.outcome()).toMatchObject({ added: 5, stop: "time budget" });
  });

  it("allows as long as the first rounds took, at least a minimum, within what is left", () => {
    expect(extraAllowance({ minSeconds: 10, left: 100 })(30)).toBe(30);
    expect(extraAllowance({ minSeconds: 10, left: 100 })(3)).toBe(10);
    expect(extraAllowance({ minSeconds: 10, left: 20 })(30)).toBe(20);
  });
});

describe("bench targets: table rows", () => {
  it("prints the median, its interval, the rounds, the target and the verdict", () => {
    expect(targetRow("a / b", summarizeRatios([1, 1.5, 2, 1.2, 1.8, 1.6], 1.3))).toEqual([
      "a / b",
      "1.55×",
      "1.00×–2.00×",
      "6",
      "≤ 1.3×",
      "not met (interval holds the target)",
    ]);
    // under 6 readable rounds the interval is min–max, with its coverage
    expect(targetRow("a / b", summarizeRatios([1, 1.5, 2], 1.3, 4)).slice(2, 4)).toEqual(["1.00×–2.00× (75.0 %)", "4 (1 unreadable)"]);
    expect(targetRow("a / b", { limit: 0.6, notMeasured: "x not installed" })[5]).toBe("not measured: x not installed");
    // a ratio under 0.1 keeps a third digit (0.04× and 0.05× would not tell a met row from a missed one)
    expect(targetRow("a / b", summarizeRatios([0.043, 0.041, 0.045, 0.044, 0.043, 0.04], 0.05)).slice(1)).toEqual([
      "0.043×",
      "0.040×–0.045×",
      "6",
      "≤ 0.05×",
      "met",
    ]);
  });

  it("says how many rounds were added and why they stopped", () => {
    const s = {
      ...summarizeRatios(
        oneTo(60).map((i) => 0.7 + (i % 3) * 0.1),
        0.8,
        62,
      ),
      extra: { added: 45, stop: "rounds cap" },
    };
    expect(targetRow("a / b", s)[3]).toBe("62 (+45; rounds cap, 2 unreadable)");
  });
});
