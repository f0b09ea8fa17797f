// Span times come from the events' timestamps: the microseconds the runtime recorded for its own
// events, and the timestamp text of any event fed in otherwise, including a copy of a runtime
// event whose timestamp was changed.
import { describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const micros = ([seconds, nanos]: [number, number]) => seconds * 1_000_000 + Math.floor(nanos / 1000);

describe("span times", () => {
  it("are the events' own timestamps, for runtime events and for copies given other timestamps", async () => {
    const rt = createRuntime();
    const events: AtofEvent[] = [];
    rt.subscribe("keep", (e) => void events.push(e));
    const capture = new SpanCapture({ projection: "full" });
    capture.register(rt);
    await rt.executeTool("lookup", { q: 1 }, () => ({ result: 1 }));
    await rt.flush();
    const [start, end] = events;
    const [span] = await capture.spans();
    expect(micros(span!.startTime)).toBe(parseTimestamp(start!.timestamp));
    expect(micros(span!.endTime)).toBe(parseTimestamp(end!.timestamp));

    // the same events, copied (symbol properties included) with their times moved a day later
    const day = 86_400_000_000;
    const later = (e: AtofEvent): AtofEvent => {
      const us = parseTimestamp(e.timestamp) + day;
      return { ...e, timestamp: new Date(us / 1000).toISOString().replace("Z", `${String(us % 1000).padStart(3, "0")}Z`) };
    };
    const replay = new SpanCapture({ projection: "full" });
    replay.onEvent(later(start!));
    replay.onEvent(later(end!));
    const [moved] = await replay.spans();
    expect(micros(moved!.startTime)).toBe(parseTimestamp(start!.timestamp) + day);
    expect(micros(moved!.endTime)).toBe(parseTimestamp(end!.timestamp) + day);
    await rt.shutdown();
  });
});
