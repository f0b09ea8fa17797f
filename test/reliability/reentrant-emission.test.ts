// A subscriber that emits an event for every event it receives would keep the dispatcher busy
// forever (each delivery queues the next). Re-entrant emission is bounded in depth and in how
// many events descend from one app event; the cut is named in a diagnostic and the app goes on.
// The subscribers below stop by themselves after a hard cap, so the old unbounded behaviour
// fails the count instead of hanging the test.
import { describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { MAX_REENTRANT_DEPTH, MAX_REENTRANT_EVENTS } from "../../src/runtime/publisher.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const HARD_CAP = 100_000;

describe("re-entrant emission", () => {
  it("a subscriber that marks for every event: the app's call returns, the chain is cut at the depth bound, a diagnostic says so", async () => {
    const rt = createRuntime();
    let marks = 0;
    rt.subscribe("echo", () => {
      if (marks >= HARD_CAP) return;
      marks++;
      rt.mark("echo");
    });
    const delivered: AtofEvent[] = [];
    rt.subscribe("capture", (e) => void delivered.push(e));

    const out = await rt.withScope("app", () => "done");
    await rt.flush();

    expect(out).toBe("done");
    // two app events (start, end), each the root of a chain of at most MAX_REENTRANT_DEPTH marks
    expect(delivered.filter((e) => e.name === "echo")).toHaveLength(2 * MAX_REENTRANT_DEPTH);
    expect(marks).toBeLessThanOrEqual(2 * (MAX_REENTRANT_DEPTH + 1));
    const cut = rt.diagnostics().find((d) => d.code === "reentrant_emission_cut");
    expect(cut?.message).toMatch(
      /event echo emitted from inside subscriber echo dropped: chain of events emitted from callbacks deeper than 8/,
    );
    expect(cut?.count).toBe(2);

    // the runtime still works: a later app event is delivered, and starts its own bounded chain
    rt.mark("later");
    await rt.flush();
    expect(delivered.some((e) => e.name === "later")).toBe(true);
  });

  it("a subscriber that fans out (two marks per event) is cut at the per-event bound, not after 2^depth events", async () => {
    const messages: string[] = [];
    const rt = createRuntime({ onDiagnostic: (d) => void messages.push(d.message) });
    let marks = 0;
    rt.subscribe("fan-out", () => {
      for (let i = 0; i < 2 && marks < HARD_CAP; i++) {
        marks++;
        rt.mark("fan");
      }
    });
    const delivered: AtofEvent[] = [];
    rt.subscribe("capture", (e) => void delivered.push(e));

    rt.mark("root");
    await rt.flush();

    const fans = delivered.filter((e) => e.name === "fan").length;
    expect(fans).toBe(MAX_REENTRANT_EVENTS);
    expect(marks).toBeLessThan(4 * MAX_REENTRANT_EVENTS);
    expect(messages).toContainEqual(
      expect.stringMatching(/event fan .* dropped: more than 256 events emitted from callbacks for one event/),
    );
  });

  it("a sanitizer that marks while it runs is bounded the same way", async () => {
    const rt = createRuntime();
    let marks = 0;
    rt.registerMarkSanitizer("noisy", 1, (_event, fields) => {
      if (marks < HARD_CAP) {
        marks++;
        rt.mark("audit");
      }
      return fields;
    });
    const delivered: AtofEvent[] = [];
    rt.subscribe("capture", (e) => void delivered.push(e));
    rt.mark("root");
    await rt.flush();
    expect(delivered.filter((e) => e.name === "audit")).toHaveLength(MAX_REENTRANT_DEPTH);
    expect(rt.diagnostics().find((d) => d.code === "reentrant_emission_cut")?.message).toMatch(/inside event sanitizer noisy/);
  });

  it("events a subscriber emits once per app event (no chain) are all delivered", async () => {
    const rt = createRuntime();
    rt.subscribe("audit", (e) => {
      if (e.name !== "audit") rt.mark("audit", { data: { of: e.name } });
    });
    const delivered: AtofEvent[] = [];
    rt.subscribe("capture", (e) => void delivered.push(e));
    for (let i = 0; i < 1000; i++) rt.mark(`app-${i}`);
    await rt.flush();
    expect(delivered.filter((e) => e.name === "audit")).toHaveLength(1000);
    expect(rt.diagnostics().map((d) => d.code)).not.toContain("reentrant_emission_cut");
  });
});

describe("a diagnostic listener that marks", () => {
  it("marking on every diagnostic while chains are cut: each cut is reported once, the listener's own marks are dropped quietly", async () => {
    let listenerMarks = 0;
    const rt = createRuntime({
      onDiagnostic: () => {
        if (listenerMarks >= HARD_CAP) return;
        listenerMarks++;
        rt.mark("diagnosed");
      },
    });
    let marks = 0;
    rt.subscribe("echo", () => {
      if (marks >= HARD_CAP) return;
      marks++;
      rt.mark("echo");
    });
    rt.mark("root");
    await rt.flush();
    expect(rt.diagnostics().find((d) => d.code === "reentrant_emission_cut")?.count).toBe(1);
    expect(listenerMarks).toBe(1);
  });
});
