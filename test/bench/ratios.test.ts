import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs module of the bench harness, without types
import { perRoundRatios, summarizeRatios, targetRow } from "../../bench/lib/ratios.mjs";

describe("bench targets: per-round ratios", () => {
  it("divides round by round and leaves out rounds whose reference is not positive", () => {
    expect(perRoundRatios([2, 3, 4, 5], [4, 0, 8, 10])).toEqual([0.5, 0.5, 0.5]);
  });

  it("summarizes the median, the spread and met / not met against the limit", () => {
    const s = summarizeRatios([0.9, 0.5, 0.7, 0.6, 1.2], 0.8);
    expect(s).toMatchObject({ median: 0.7, min: 0.5, max: 1.2, rounds: 5, total: 5, limit: 0.8, met: true });
    expect(summarizeRatios([0.9, 0.85, 0.7], 0.8).met).toBe(false);
    expect(summarizeRatios([], 0.8).met).toBeUndefined();
  });

  it("prints a row with the spread, the target and the verdict", () => {
    expect(targetRow("a / b", summarizeRatios([1, 1.5, 2], 1.3))).toEqual([
      "a / b",
      "1.50×",
      "1.00×–2.00× (3 rounds)",
      "≤ 1.3×",
      "not met",
    ]);
    expect(targetRow("a / b", summarizeRatios([1], 1.3, 3))[2]).toBe("1.00×–1.00× (1 of 3 rounds readable)");
    expect(targetRow("a / b", { limit: 0.6, notMeasured: "x not installed" })[4]).toBe("not measured: x not installed");
    // a ratio under 0.1 keeps a third digit (0.04× and 0.05× would not tell a met row from a missed one)
    expect(targetRow("a / b", summarizeRatios([0.043, 0.052, 0.061], 0.05)).slice(1)).toEqual([
      "0.052×",
      "0.043×–0.061× (3 rounds)",
      "≤ 0.05×",
      "not met",
    ]);
  });
});
