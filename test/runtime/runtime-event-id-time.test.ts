import { afterEach, describe, expect, it, vi } from "vitest";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent } from "../../src/events/types.js";
import { capturingRuntime } from "../support/capture.js";

// The event starts and marks of a short traced run: a scope, a tool, an LLM call, a mark, an evaluation.
async function tracedRun(options?: Parameters<typeof capturingRuntime>[0]): Promise<AtofEvent[]> {
  const { rt, settle } = capturingRuntime(options);
  await rt.withScope("agent", async () => {
    await rt.executeTool("lookup", { q: 1 }, () => ({ result: 2 }));
    await rt.executeLlm("model", { messages: [] }, () => ({ content: "ok" }));
    rt.mark("cache.lookup");
  });
  const events = await settle();
  await rt.shutdown();
  return events.filter((e) => e.kind === "mark" || e.scope_category === "start");
}

// UUIDv7: the first 48 bits are Unix milliseconds.
const idMs = (uuid: string): number => Number.parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16);

describe("event ids and timestamps", () => {
  afterEach(() => vi.restoreAllMocks());

  it("an event's UUIDv7 carries the millisecond of its own timestamp, from the same clock reading", async () => {
    // Move the system clock an hour ahead of Date.now(): an id that read the wall clock again
    // would carry a time an hour before its event's timestamp.
    const realNow = performance.now.bind(performance);
    vi.spyOn(performance, "now").mockImplementation(() => realNow() + 3_600_000);
    const events = await tracedRun();
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const e of events) expect(idMs(e.uuid)).toBe(Math.floor(parseTimestamp(e.timestamp) / 1000));
  });

  it("does not read the wall clock a second time for an event's id", async () => {
    const dateNow = vi.spyOn(Date, "now");
    const events = await tracedRun();
    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(dateNow).not.toHaveBeenCalled();
  });

  it("an injected idGenerator still names every event", async () => {
    let n = 0;
    const events = await tracedRun({ idGenerator: () => `id-${++n}` });
    expect(events.map((e) => e.uuid).every((id) => /^id-\d+$/.test(id))).toBe(true);
  });

  it("an injected clock stamps the events but does not set the time of the ids", async () => {
    const year2100Us = 4_102_444_800_000_000;
    const events = await tracedRun({ clock: { nowUs: () => year2100Us } });
    for (const e of events) expect(parseTimestamp(e.timestamp)).toBeGreaterThanOrEqual(year2100Us);
    // Ids keep the wall clock's time: uuidv7's ordering state is process-wide, shared with other runtimes.
    for (const e of events) expect(idMs(e.uuid)).toBeLessThan(year2100Us / 1000);
  });
});
