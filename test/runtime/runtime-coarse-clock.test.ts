// With a clock of millisecond resolution an end is often clamped to its start + 1 µs, ahead of
// the clock: a scope must still end at or after every child that ended inside it.
import { describe, expect, it } from "vitest";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime, scopes } from "../support/capture.js";

describe("a coarse clock", () => {
  it("never lets a child end after its parent", async () => {
    const MS = 1000;
    let now = 1_700_000_000_000_000; // µs, always a whole millisecond
    const { rt, settle } = capturingRuntime({ clock: { nowUs: () => now } });
    await rt.withScope("agent", async () => {
      now += MS; // the child starts in the next millisecond and ends within it
      await rt.withScope("step", () => rt.executeTool("lookup", {}, () => ({ result: 1 })));
    });
    const ends = new Map(
      scopes(await settle())
        .filter((e) => e.scope_category === "end")
        .map((e) => [e.name, parseTimestamp(e.timestamp)] as [string, number]),
    );
    expect(ends.get("lookup")!).toBeGreaterThan(now); // clamped past the clock
    expect(ends.get("step")!).toBeGreaterThanOrEqual(ends.get("lookup")!);
    expect(ends.get("agent")!).toBeGreaterThanOrEqual(ends.get("step")!);
  });

  it("keeps every start at or before its end and events in emission order", async () => {
    const now = 1_700_000_000_000_000;
    const { rt, settle } = capturingRuntime({ clock: { nowUs: () => now } });
    await rt.withScope("agent", async () => {
      for (let i = 0; i < 3; i++) await rt.executeTool(`t${i}`, {}, () => ({ result: i }));
    });
    const events = scopes(await settle());
    const times = events.map((e) => parseTimestamp(e.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const starts = new Map(events.filter((e) => e.scope_category === "start").map((e) => [e.uuid, e] as [string, ScopeEvent]));
    for (const end of events.filter((e) => e.scope_category === "end")) {
      expect(parseTimestamp(end.timestamp)).toBeGreaterThan(parseTimestamp(starts.get(end.uuid)!.timestamp));
    }
  });
});
