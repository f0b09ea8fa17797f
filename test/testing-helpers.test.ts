import { describe, expect, it } from "vitest";
import { createSequentialIds, createTestClock, EventCapture, SpanCapture, toSnapshot, toTree } from "../exporters/testing/index.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { isUuid } from "../src/events/uuid.js";
import { runSampleAgent as runAgent } from "./support/sample-agent.js";

async function smallTrace(options: { deterministic: boolean }) {
  const rt = createRuntime(options.deterministic ? { clock: createTestClock({ stepUs: 10 }), idGenerator: createSequentialIds() } : {});
  const capture = new SpanCapture({ projection: "full" });
  capture.register(rt);
  await rt.withScope(
    "planner",
    async () => {
      rt.mark("thinking", { data: { step: 1 } });
      await rt.executeTool("lookup", { q: "oslo" }, () => ({ result: { hits: 2 } }), { toolCallId: "call_1" });
    },
    { category: "agent", metadata: { session_id: "s-1" } },
  );
  await rt.shutdown();
  return capture.spans();
}

describe("createTestClock / createSequentialIds", () => {
  it("steps the clock by stepUs from startUs", () => {
    const clock = createTestClock({ startUs: 1_000, stepUs: 5 });
    expect([clock.nowUs(), clock.nowUs(), clock.nowUs()]).toEqual([1_000, 1_005, 1_010]);
  });

  it("gives valid, distinct, increasing uuidv7-shaped ids with distinct span ids", () => {
    const next = createSequentialIds();
    const ids = Array.from({ length: 300 }, () => next());
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe("7");
      expect("89ab").toContain(id[19]);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.replace(/-/g, "").slice(16))).size).toBe(300);
  });
});

describe("EventCapture", () => {
  it("records every delivered event in order and can be cleared", async () => {
    const rt = createRuntime();
    const capture = new EventCapture();
    capture.register(rt);
    await rt.withScope("s", () => {
      rt.mark("m");
    });
    await rt.flush();
    expect(capture.events.map((e) => (e.kind === "mark" ? `mark:${e.name}` : `${e.scope_category}:${e.name}`))).toEqual([
      "start:s",
      "mark:m",
      "end:s",
    ]);
    capture.clear();
    expect(capture.events).toEqual([]);
  });
});

describe("toSnapshot / toTree", () => {
  it("is identical across two runs with different real uuids and clocks", async () => {
    const first = await smallTrace({ deterministic: false });
    const second = await smallTrace({ deterministic: false });
    expect(first[0]!.spanContext().traceId).not.toBe(second[0]!.spanContext().traceId);
    expect(toSnapshot(first)).toEqual(toSnapshot(second));
    expect(toTree(first)).toBe(toTree(second));
  });

  it("tokenizes ids and uuids in attribute values, sorts attributes, keeps parentage", async () => {
    const snap = toSnapshot(await smallTrace({ deterministic: true }));
    const [tool, agent] = snap.spans;
    expect(tool!.name).toBe("lookup");
    expect(agent!.name).toBe("planner");
    expect(tool!.traceId).toBe("<trace-1>");
    expect(agent!.traceId).toBe("<trace-1>");
    expect(tool!.spanId).toBe("<span-1>");
    expect(tool!.parentSpanId).toBe("<span-2>");
    expect(agent!.spanId).toBe("<span-2>");
    expect(agent!.parentSpanId).toBeNull();
    expect(Object.keys(tool!.attributes)).toEqual([...Object.keys(tool!.attributes)].sort());
    expect(tool!.attributes["nemo_relay.uuid"]).toMatch(/^<uuid-\d+>$/);
    expect(tool!.attributes["nemo_relay.parent_uuid"]).toBe(agent!.attributes["nemo_relay.uuid"]);
    expect(JSON.stringify(snap)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(agent!.events.map((e) => e.name)).toEqual(["thinking"]);
    expect(agent!.start).toBe("<t-1>");
  });

  it("gives offsets from the first start with a deterministic clock", async () => {
    const snap = toSnapshot(await smallTrace({ deterministic: true }), { times: "offsets" });
    const agent = snap.spans.find((s) => s.name === "planner")!;
    const tool = snap.spans.find((s) => s.name === "lookup")!;
    expect(agent.start).toBe(0);
    expect(typeof tool.start).toBe("number");
    expect(tool.start as number).toBeGreaterThan(0);
    expect(tool.end as number).toBeLessThanOrEqual(agent.end as number);
  });

  it("draws the parent/child tree with kinds, statuses and span events", async () => {
    const tree = toTree(await smallTrace({ deterministic: true }), { attributes: ["nemo_relay.tool_call_id"] });
    expect(tree).toBe(["planner (INTERNAL, OK)", "├─ • thinking", "└─ lookup (CLIENT, OK) nemo_relay.tool_call_id=call_1"].join("\n"));
  });
});

describe("testing helpers accept what they accepted before", () => {
  it("SpanCapture with projection options and EventCapture see the same run", async () => {
    const runtime = createRuntime();
    const spans = new SpanCapture({ projection: "full", markProjection: "tool", namespace: "acme", maxQueueSize: 100 });
    const events = new EventCapture();
    spans.register(runtime);
    events.register(runtime);
    await runAgent(runtime);
    const names = (await spans.spans()).map((s) => s.name).sort();
    expect(names).toEqual(["add", "mark:sample.checkpoint", "sample-agent"]);
    expect(events.events.filter((e) => e.kind === "scope").map((e) => `${e.name}:${e.kind === "scope" ? e.scope_category : ""}`)).toEqual([
      "sample-agent:start",
      "add:start",
      "add:end",
      "sample-agent:end",
    ]);
    await runtime.shutdown();
  });

  it("SpanCapture still rejects a wrong option the same way OtelExporter does", () => {
    expect(() => new SpanCapture({ projection: "full", markProjection: "spans" as never })).toThrow(/markProjection/);
  });
});
