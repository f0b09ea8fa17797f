import { describe, expect, it } from "vitest";
import { MonotonicClock } from "../../src/events/clock.js";
import { formatTimestamp, parseTimestamp, toMicros } from "../../src/events/timestamp.js";
import { spanIdOf, uuidHex, uuidv7 } from "../../src/events/uuid.js";
import { capturingRuntime, scopes } from "../support/capture.js";

describe("timestamps", () => {
  it("writes RFC 3339 with exactly six fraction digits and Z", () => {
    expect(formatTimestamp(1_772_366_400_412_000)).toBe("2026-03-01T12:00:00.412000Z");
    expect(formatTimestamp(1_772_366_400_000_001)).toBe("2026-03-01T12:00:00.000001Z");
    expect(formatTimestamp(1_772_366_400_012_345)).toBe("2026-03-01T12:00:00.012345Z");
    expect(formatTimestamp(1_772_366_400_100_010)).toBe("2026-03-01T12:00:00.100010Z");
    expect(formatTimestamp(1_772_366_400_999_999)).toBe("2026-03-01T12:00:00.999999Z");
    expect(formatTimestamp(1_772_366_401_000_000)).toBe("2026-03-01T12:00:01.000000Z");
  });

  it("reads both wire forms, offsets, and truncates past microseconds", () => {
    expect(parseTimestamp("2026-03-01T12:00:00.412000Z")).toBe(1_772_366_400_412_000);
    expect(parseTimestamp(1_772_366_400_412_000)).toBe(1_772_366_400_412_000);
    expect(parseTimestamp("2026-03-01T13:00:00.412+01:00")).toBe(1_772_366_400_412_000);
    expect(parseTimestamp("2026-03-01T12:00:00.412000999Z")).toBe(1_772_366_400_412_000);
    expect(parseTimestamp("2026-01-01T00:00:00Z")).toBe(1_767_225_600_000_000);
  });

  it("reads its own six-digit form exactly, across second boundaries, and still rejects impossible dates", () => {
    for (const us of [1_772_366_399_999_999, 1_772_366_400_000_000, 1_772_366_400_000_001, 1_767_225_600_123_456]) {
      expect(parseTimestamp(formatTimestamp(us))).toBe(us);
    }
    expect(() => parseTimestamp("2026-13-01T12:00:00.000000Z")).toThrow(/not a valid date/);
    expect(() => parseTimestamp("2026-03-01T12:00:00.00000xZ")).toThrow(/not RFC 3339/);
  });

  it("rejects what is not a timestamp", () => {
    expect(() => parseTimestamp("yesterday")).toThrow(TypeError);
    expect(() => parseTimestamp(-1)).toThrow(/safe integer/);
    expect(() => parseTimestamp(1.5)).toThrow(/safe integer/);
    expect(() => toMicros(new Date(Number.NaN))).toThrow(TypeError);
    expect(toMicros(new Date(1000))).toBe(1_000_000);
  });
});

describe("clock", () => {
  it("never goes backwards when the source steps back", () => {
    const readings = [100, 200, 150, 90, 300];
    const clock = new MonotonicClock({ nowUs: () => readings.shift()! });
    expect([clock.nowUs(), clock.nowUs(), clock.nowUs(), clock.nowUs(), clock.nowUs()]).toEqual([100, 200, 200, 200, 300]);
  });

  it("keeps every end at least 1 µs after its start even when the wall clock steps back", async () => {
    let now = 5_000_000;
    const { rt, settle } = capturingRuntime({ clock: { nowUs: () => (now -= 1000) } });
    await rt.withScope("outer", () => rt.executeTool("t", {}, () => ({ result: 1 })));
    const events = scopes(await settle());
    const byUuid = new Map<string, number[]>();
    for (const e of events) byUuid.set(e.uuid, [...(byUuid.get(e.uuid) ?? []), parseTimestamp(e.timestamp)]);
    for (const [start, end] of byUuid.values()) expect(end! - start!).toBeGreaterThanOrEqual(1);
    const times = events.map((e) => parseTimestamp(e.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

describe("uuidv7", () => {
  it("has version 7, the RFC variant, and increases strictly within one process", () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives ids made in the same millisecond independent random tails, across many pools of randomness", () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7(2_100_000_000_000));
    const tails = new Set(ids.map((id) => id.slice(19)));
    expect(tails.size).toBe(ids.length);
    // Each of the 62 random bits takes both values somewhere in the sample.
    const bits = ids.map((id) => BigInt(`0x${id.slice(19).replace("-", "")}`) & ((1n << 62n) - 1n));
    const ones = bits.reduce((a, b) => a | b, 0n);
    const zeros = bits.reduce((a, b) => a | (~b & ((1n << 62n) - 1n)), 0n);
    expect(ones).toBe((1n << 62n) - 1n);
    expect(zeros).toBe((1n << 62n) - 1n);
  });

  it("stays increasing when the clock stands still or steps back", () => {
    const a = uuidv7(2_000_000_000_000);
    const b = uuidv7(2_000_000_000_000);
    const c = uuidv7(1_000_000_000_000);
    expect(a < b && b < c).toBe(true);
  });

  it("derives span ids from the last 8 bytes", () => {
    const id = "019ca945-0b9c-7128-a24b-e40ad23f0824";
    expect(uuidHex(id)).toBe("019ca9450b9c7128a24be40ad23f0824");
    expect(spanIdOf(id)).toBe("a24be40ad23f0824");
  });
});
