import { SpanStatusCode, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { flattenInto, UNENDED_SPAN_DESCRIPTION } from "../../exporters/otel/index.js";
import { OtelExporter } from "../../exporters/otel/index.js";
import { MAX_CONCURRENT_EXPORTS } from "../../exporters/otel/span-batcher.js";
import { COMPLETED_CAPACITY } from "../../exporters/otel/span-registry.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { HeldSpanExporter } from "../support/held-span-exporter.js";
import type { ProjectionName } from "../../exporters/otel/index.js";
import { TRACE_LINK } from "../../src/events/trace-link.js";
import type { AtofEvent } from "../../src/events/types.js";
import { end, mark, start, ts } from "../support/otel-events.js";

const P = "019ca945-1000-7000-8000-00000000000a";
const C = "019ca945-1001-7000-8000-00000000000b";
const G = "019ca945-1002-7000-8000-00000000000c";
const K = "019ca945-1003-7000-8000-00000000000d";

async function run(
  projection: ProjectionName,
  events: AtofEvent[],
  extra: { markExcludeNames?: string[]; markProjection?: "inherit" | "event" | "tool" } = {},
) {
  const capture = new SpanCapture({ projection, ...extra });
  for (const e of events) capture.onEvent(e);
  const spans = await capture.spans();
  return { spans, byName: new Map(spans.map((s) => [s.name, s] as [string, ReadableSpan])), capture };
}

describe("flattening (§1.7)", () => {
  it("writes one attribute per top-level key, nested values as JSON text, typed scalars", () => {
    const attrs: Attributes = {};
    flattenInto(attrs, "p", { a: { b: 1 }, c: [1], s: "x", t: true, i: 7, d: 1.5, n: null, inf: Number.POSITIVE_INFINITY });
    expect(attrs).toEqual({ "p.a": '{"b":1}', "p.c": "[1]", "p.s": "x", "p.t": true, "p.i": 7, "p.d": 1.5 });
  });

  it("writes a scalar under the prefix itself and nothing for null", () => {
    const attrs: Attributes = {};
    flattenInto(attrs, "p", "hello");
    flattenInto(attrs, "q", null);
    flattenInto(attrs, "r", 3);
    expect(attrs).toEqual({ p: "hello", r: 3 });
  });

  it("does not escape dotted keys in projected spans", async () => {
    const { byName } = await run("full", [
      start({ uuid: P, name: "step", at: ts("0.000001"), data: "raw text", metadata: { "a.b": { deep: [1, 2] } } }),
      end({ uuid: P, name: "step", at: ts("0.000002"), data: [1, 2], metadata: { "otel.status_code": "OK" } }),
    ]);
    const s = byName.get("step")!;
    expect(s.attributes["nemo_relay.start.data"]).toBe("raw text");
    expect(s.attributes["nemo_relay.start.metadata.a.b"]).toBe('{"deep":[1,2]}');
    expect(s.attributes["nemo_relay.end.data"]).toBe("[1,2]");
    expect(s.attributes["nemo_relay.end.metadata.otel.status_code"]).toBe("OK");
    expect(s.attributes["nemo_relay.scope_type"]).toBe("function");
  });
});

describe("status and errors (§1.5)", () => {
  const failing = (meta: Record<string, string>) => [
    start({ uuid: P, parent: null, name: "agent", category: "agent", at: ts("0.000001") }),
    start({ uuid: C, parent: P, name: "boom", category: "tool", at: ts("0.000002") }),
    end({
      uuid: C,
      parent: P,
      name: "boom",
      category: "tool",
      at: ts("0.000003"),
      metadata: { "otel.status_code": "ERROR", "otel.status_description": "it broke", ...meta },
    }),
    end({ uuid: P, parent: null, name: "agent", category: "agent", at: ts("0.000004"), metadata: { "otel.status_code": "ERROR" } }),
  ];

  it("falls back to _OTHER and adds no exception event when no class is known (full, gen_ai)", async () => {
    for (const projection of ["full", "gen_ai"] as const) {
      const { spans } = await run(projection, failing({}));
      const tool = spans.find((s) => s.name.endsWith("boom"))!;
      expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "it broke" });
      expect(tool.attributes["error.type"]).toBe("_OTHER");
      expect(tool.events).toHaveLength(0);
    }
  });

  it("records error.type and an exception event, and the errored parent inherits them", async () => {
    const { spans } = await run("full", failing({ "error.type": "timeout", "exception.type": "TypeError" }));
    const tool = spans.find((s) => s.name === "boom")!;
    const agent = spans.find((s) => s.name === "agent")!;
    expect(tool.attributes["error.type"]).toBe("timeout");
    expect(tool.events).toEqual([
      expect.objectContaining({ name: "exception", time: tool.endTime, attributes: { "exception.type": "TypeError" } }),
    ]);
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.status.message).toBe("");
    expect(agent.attributes["error.type"]).toBe("timeout");
    expect(agent.events.map((e) => e.attributes?.["exception.type"])).toEqual(["TypeError"]);
  });

  it("openinference sets status and the exception event but no error.type", async () => {
    const { spans } = await run("openinference", failing({ "error.type": "timeout", "exception.type": "TypeError" }));
    const tool = spans.find((s) => s.name === "boom")!;
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool.attributes["error.type"]).toBeUndefined();
    expect(tool.events.map((e) => e.name)).toEqual(["exception"]);
  });

  it("leaves UNSET for absent or unknown codes and counts the unknown one", async () => {
    const { byName, capture } = await run("full", [
      start({ uuid: P, name: "a", at: ts("0.000001") }),
      end({ uuid: P, name: "a", at: ts("0.000002") }),
      start({ uuid: C, name: "b", at: ts("0.000003") }),
      end({ uuid: C, name: "b", at: ts("0.000004"), metadata: { "otel.status_code": "MAYBE" } }),
    ]);
    expect(byName.get("a")!.status.code).toBe(SpanStatusCode.UNSET);
    expect(byName.get("b")!.status.code).toBe(SpanStatusCode.UNSET);
    expect(capture.exporter.diagnostics()).toContainEqual(expect.objectContaining({ code: "otel.invalid_status_code", count: 1 }));
  });

  it("never puts the annotation on an error end", async () => {
    const { byName } = await run("full", [
      start({ uuid: C, name: "t", category: "tool", at: ts("0.000001") }),
      end({
        uuid: C,
        name: "t",
        category: "tool",
        at: ts("0.000002"),
        profile: { tool_result_annotation: { x: 1 } },
        metadata: { "otel.status_code": "ERROR" },
      }),
    ]);
    expect(byName.get("t")!.attributes["nemo_relay.tool.result.annotation"]).toBeUndefined();
  });
});

describe("marks (§5)", () => {
  const tree = (marks: AtofEvent[]) => [
    start({ uuid: P, name: "agent", category: "agent", at: ts("0.000001") }),
    start({ uuid: C, parent: P, name: "tool", category: "tool", at: ts("0.000002") }),
    ...marks,
    end({ uuid: C, parent: P, name: "tool", category: "tool", at: ts("0.000005") }),
    end({ uuid: P, name: "agent", category: "agent", at: ts("0.000009") }),
  ];

  it("a mark under an open span becomes a span event with the mark attributes", async () => {
    const { spans } = await run("full", tree([mark({ uuid: G, parent: C, name: "progress", at: ts("0.000003"), data: { pct: 50 } })]));
    expect(spans.map((s) => s.name).sort()).toEqual(["agent", "tool"]);
    const tool = spans.find((s) => s.name === "tool")!;
    expect(tool.events).toHaveLength(1);
    expect(tool.events[0]!.name).toBe("progress");
    expect(tool.events[0]!.time).toEqual([1772366400, 3000]);
    expect(tool.events[0]!.attributes).toEqual({
      "nemo_relay.mark.uuid": G,
      "nemo_relay.mark.parent_uuid": C,
      "nemo_relay.mark.data.pct": 50,
    });
  });

  it("a mark under a closed span becomes an orphan mark span; an unknown parent starts its own trace", async () => {
    const { byName } = await run("full", [
      ...tree([]),
      mark({ uuid: G, parent: C, name: "late", at: ts("0.000010") }),
      mark({ uuid: K, parent: "019ca945-9999-7000-8000-0000000000ff", name: "lost", at: ts("0.000011") }),
    ]);
    const late = byName.get("mark:late")!;
    expect(late.parentSpanContext?.spanId).toBe(byName.get("tool")!.spanContext().spanId);
    expect(late.spanContext().traceId).toBe(byName.get("agent")!.spanContext().traceId);
    expect(late.attributes["nemo_relay.mark.orphan"]).toBe(true);
    const lost = byName.get("mark:lost")!;
    expect(lost.parentSpanContext).toBeUndefined();
    expect(lost.spanContext().traceId).toBe(K.replace(/-/g, ""));
  });

  it('markProjection "tool" makes child spans of open parents (no orphan flag) except excluded names', async () => {
    const { byName, spans } = await run(
      "full",
      tree([
        mark({ uuid: G, parent: C, name: "step", at: ts("0.000003") }),
        mark({ uuid: K, parent: C, name: "llm.chunk", at: ts("0.000004") }),
      ]),
      { markProjection: "tool" },
    );
    const step = byName.get("mark:step")!;
    expect(step.parentSpanContext?.spanId).toBe(byName.get("tool")!.spanContext().spanId);
    expect(step.attributes["nemo_relay.mark.projection"]).toBe("tool");
    expect(step.attributes["nemo_relay.mark.orphan"]).toBeUndefined();
    expect(spans.some((s) => s.name === "mark:llm.chunk")).toBe(false);
    expect(byName.get("tool")!.events.map((e) => e.name)).toEqual(["llm.chunk"]);
  });

  it("metric marks never reach traces; gen_ai renders no marks", async () => {
    const metric = mark({
      uuid: G,
      parent: C,
      name: "metrics",
      at: ts("0.000010"),
      schema: { name: "nemo.relay.metric_measurements", version: "1" },
      data: { measurements: [] },
    });
    const full = await run("full", [...tree([]), metric]);
    expect(full.spans.map((s) => s.name).sort()).toEqual(["agent", "tool"]);
    const genAi = await run("gen_ai", tree([mark({ uuid: K, parent: C, name: "progress", at: ts("0.000003") })]));
    expect(genAi.spans.every((s) => s.events.length === 0)).toBe(true);
  });
});

describe("parent resolution (§1.3)", () => {
  it("continues a propagated trace under a remote parent", async () => {
    const root = "019ca945-2000-7000-8000-0000000000a1";
    const remoteParent = "019ca945-2001-7000-8000-0000000000a2";
    const continuing = start({
      uuid: P,
      parent: remoteParent,
      name: "worker",
      category: "agent",
      at: ts("0.000001"),
      metadata: { session_id: "s" },
    });
    const { byName } = await run("full", [
      Object.assign(continuing, { [TRACE_LINK]: { rootUuid: root, parentUuid: remoteParent } }),
      end({ uuid: P, parent: remoteParent, name: "worker", category: "agent", at: ts("0.000002") }),
    ]);
    const worker = byName.get("worker")!;
    expect(worker.spanContext().traceId).toBe(root.replace(/-/g, ""));
    expect(worker.parentSpanContext).toMatchObject({ spanId: "80000000000000a2", traceId: root.replace(/-/g, ""), isRemote: true });
    // not a trace root, so no session identity
    expect(worker.attributes["session.id"]).toBeUndefined();
  });

  it("finds a completed parent and keeps non-uuid ids stable", async () => {
    const first = await run("full", [
      start({ uuid: "root-001", name: "wf", category: "unknown", at: ts("0.000001") }),
      end({ uuid: "root-001", name: "wf", category: "unknown", at: ts("0.000002") }),
      start({ uuid: "late-001", parent: "root-001", name: "late", category: "weird", at: ts("0.000003") }),
      end({ uuid: "late-001", parent: "root-001", name: "late", category: "weird", at: ts("0.000004") }),
    ]);
    const wf = first.byName.get("wf")!;
    const late = first.byName.get("late")!;
    expect(late.parentSpanContext?.spanId).toBe(wf.spanContext().spanId);
    expect(late.spanContext().traceId).toBe(wf.spanContext().traceId);
    expect(wf.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(late.attributes["nemo_relay.scope_type"]).toBe("unknown");
  });
});

describe("parents found by uuid", () => {
  const id = (n: number) => `019ca945-4000-7000-8000-${String(n).padStart(12, "0")}`;
  const span = (uuid: string, parent: string | null, name: string, at: string) => [
    start({ uuid, parent, name, category: "tool", at }),
    end({ uuid, parent, name, category: "tool", at }),
  ];

  it("finds a parent that was unknown when an earlier child named it, once the parent starts", async () => {
    const { byName } = await run("full", [
      ...span(C, P, "early", ts("0.000001")), // P not seen yet: a trace root
      start({ uuid: P, name: "agent", category: "agent", at: ts("0.000002") }),
      ...span(G, P, "child", ts("0.000003")),
      end({ uuid: P, name: "agent", category: "agent", at: ts("0.000004") }),
      ...span(K, P, "late", ts("0.000005")),
    ]);
    const agent = byName.get("agent")!;
    expect(byName.get("early")!.parentSpanContext).toBeUndefined();
    expect(byName.get("child")!.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(byName.get("late")!.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
  });

  it("keeps the last COMPLETED_CAPACITY completed spans resolvable, and a parent still in use beyond that", async () => {
    const events: AtofEvent[] = [...span(P, null, "parent", ts("0.000001"))];
    for (let i = 0; i < COMPLETED_CAPACITY - 1; i++) events.push(...span(id(i), null, `filler-${i}`, ts("0.000002")));
    events.push(...span(C, P, "late-1", ts("0.000003")));
    // late-1 looked the parent up: it counts as recent again, so late-2 finds it after another capacity's worth of spans
    for (let i = 0; i < COMPLETED_CAPACITY - 2; i++) events.push(...span(id(COMPLETED_CAPACITY + i), null, `filler2-${i}`, ts("0.000004")));
    events.push(...span(G, P, "late-2", ts("0.000005")));
    const { byName } = await run("full", events);
    const parent = byName.get("parent")!.spanContext();
    expect(byName.get("late-1")!.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(byName.get("late-2")!.parentSpanContext?.spanId).toBe(parent.spanId);
  });
});

describe("shutdown with open spans", () => {
  it("ends still-open spans at the last seen timestamp as errors, once", async () => {
    const capture = new SpanCapture({ projection: "full" });
    capture.onEvent(start({ uuid: P, name: "agent", category: "agent", at: ts("0.000001") }));
    capture.onEvent(start({ uuid: C, parent: P, name: "tool", category: "tool", at: ts("0.000002") }));
    capture.onEvent(mark({ uuid: G, parent: C, name: "tick", at: ts("0.000007") }));
    await capture.shutdown();
    await capture.shutdown();
    const spans = await capture.spans();
    expect(spans.map((s) => s.name)).toEqual(["tool", "agent"]);
    for (const s of spans) {
      expect(s.status).toEqual({ code: SpanStatusCode.ERROR, message: UNENDED_SPAN_DESCRIPTION });
      expect(s.endTime).toEqual([1772366400, 7000]);
      expect(s.attributes["error.type"]).toBe("_OTHER");
    }
    // events after shutdown are ignored, not thrown
    expect(() => capture.onEvent(start({ uuid: K, name: "x", at: ts("0.000009") }))).not.toThrow();
  });

  it("drops spans beyond maxQueueSize and counts them, once every export request is in flight", async () => {
    const collector = new HeldSpanExporter();
    const exporter = new OtelExporter({ projection: "full", spanExporter: collector, maxQueueSize: 2, scheduledDelayMillis: 60_000 });
    const total = MAX_CONCURRENT_EXPORTS * 2 + 4;
    for (let i = 0; i < total; i++) {
      const id = `019ca945-3000-7000-8000-${String(i).padStart(12, "0")}`;
      exporter.onEvent(start({ uuid: id, name: `s${i}`, at: ts("0.000001") }));
      exporter.onEvent(end({ uuid: id, name: `s${i}`, at: ts("0.000002") }));
    }
    // the collector is silent: each full batch of 2 left as its own request until every slot was
    // taken, the next 2 spans wait in the queue, the last 2 find it full
    expect(collector.inFlight).toBe(MAX_CONCURRENT_EXPORTS);
    expect(exporter.diagnostics()).toContainEqual(expect.objectContaining({ code: "otel.spans_dropped", count: 2 }));
    collector.release(); // the collector answers: a freed slot takes the queued batch
    await exporter.forceFlush();
    expect(collector.spans.map((s) => s.name)).toEqual(Array.from({ length: total - 2 }, (_, i) => `s${i}`));
  });
});
