// Tail sampling, one decision per trace: createRuntime({ sampling }) holds a trace's events until
// its root ends, then delivers the whole trace to every subscriber or drops it whole. Kept when a
// keep rule matches, else by the caller's W3C sampled flag, else by ratio on the trace id.
import { AsyncResource } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import type { AtofEvent, MarkEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import type { RuntimeOptions, SamplingOptions } from "../../src/runtime/types.js";
import { labels } from "../support/capture.js";
import {
  DROPPED_ROOT_RANDOM,
  KEPT_ROOT_RANDOM,
  rootIdEndingWith,
  run,
  scriptedIds,
  traceEvents,
  seededRandomHex,
} from "../support/sampling.js";

const KEPT_ROOT = rootIdEndingWith(KEPT_ROOT_RANDOM);
const DROPPED_ROOT = rootIdEndingWith(DROPPED_ROOT_RANDOM);

function sampled(sampling: SamplingOptions, options: RuntimeOptions = {}): { rt: Runtime; events: AtofEvent[]; second: AtofEvent[] } {
  const rt = createRuntime({ ...options, sampling });
  const events: AtofEvent[] = [];
  const second: AtofEvent[] = [];
  rt.subscribe("first", (e) => void events.push(e));
  rt.subscribe("second", (e) => void second.push(e));
  return { rt, events, second };
}

/** `it` with its body in an async context of its own: a top-level pushScope() in it stays out of the next test. */
function itOwnContext(name: string, fn: () => Promise<void>): void {
  it(name, () => new AsyncResource("relaytrace.test").runInAsyncScope(fn));
}

const droppedCount = (rt: Runtime) => rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.count ?? 0;

describe("createRuntime({ sampling }): a trace is held until its root ends, then delivered whole or dropped whole", () => {
  itOwnContext(
    "delivers nothing of an open trace, then the whole trace in emission order to every subscriber when its root ends",
    async () => {
      const { rt, events, second } = sampled({ ratio: 1 });
      const root = rt.pushScope("agent-run", { category: "agent" });
      await rt.executeTool("lookup", { q: 1 }, () => ({ result: "ok" }));
      rt.mark("step");
      await rt.flush();
      expect(events).toEqual([]); // held: the root is still open
      rt.popScope(root);
      await rt.flush();
      expect(labels(events)).toEqual(["start:agent:agent-run", "start:tool:lookup", "end:tool:lookup", "mark:step", "end:agent:agent-run"]);
      expect(second).toEqual(events);

      // Without sampling the same events arrive as they are emitted.
      const plain = createRuntime();
      const seen: AtofEvent[] = [];
      plain.subscribe("s", (e) => void seen.push(e));
      const open = plain.pushScope("agent-run", { category: "agent" });
      plain.mark("step");
      await plain.flush();
      expect(labels(seen)).toEqual(["start:agent:agent-run", "mark:step"]);
      plain.popScope(open);
    },
  );

  it("keeps or drops by ratio on the trace id, counts each dropped trace and reports the drops as a counter metric outside every trace", async () => {
    const ids = scriptedIds(KEPT_ROOT);
    const { rt, events } = sampled({ ratio: 0.5 }, { idGenerator: ids.idGenerator });
    await run(rt, "kept");
    ids.next(DROPPED_ROOT);
    await run(rt, "dropped");
    await rt.flush();
    const trace = traceEvents(events);
    expect(trace.map((e) => e.name)).toEqual(["kept", "lookup", "lookup", "step", "kept"]);
    expect(trace[0]!.uuid).toBe(KEPT_ROOT);
    expect(droppedCount(rt)).toBe(1);
    const dropped = rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")!;
    expect(dropped.message).toContain(`trace ${DROPPED_ROOT.replace(/-/g, "")} dropped by ratio`);
    const metric = events.find((e) => e.name === "relaytrace.sampling.dropped_traces") as MarkEvent;
    expect(metric).toMatchObject({
      kind: "mark",
      parent_uuid: null,
      data_schema: { name: "nemo.relay.metric_measurements", version: "1" },
      data: {
        measurements: [{ name: "relaytrace.sampling.dropped_traces", kind: "counter", value_type: "u64", value: 1, unit: "{trace}" }],
      },
    });
  });

  it("decides from the trace id alone: a runtime continuing each trace elsewhere keeps exactly the same traces, about `ratio` of them", async () => {
    const random = seededRandomHex(43);
    const first = sampled({ ratio: 0.25 }, { idGenerator: () => rootIdEndingWith(random()) });
    const elsewhere = sampled({ ratio: 0.25 });
    const roots: string[] = [];
    for (let i = 0; i < 400; i++) {
      const root = await first.rt.withScope("agent", (scope) => scope.uuid, { category: "agent" });
      roots.push(root);
      // The same trace continued by another runtime (a resumed run): its own root, the first one's trace.
      await elsewhere.rt.withPropagation({ version: 1, rootUuid: root, parentUuid: root }, () =>
        elsewhere.rt.withScope("agent", () => undefined, { category: "agent" }),
      );
    }
    await first.rt.flush();
    await elsewhere.rt.flush();
    const keptHere = traceEvents(first.events)
      .filter((e) => e.kind === "scope" && e.scope_category === "start")
      .map((e) => e.uuid);
    const keptThere = traceEvents(elsewhere.events)
      .filter((e) => e.kind === "scope" && e.scope_category === "start")
      .map((e) => e.parent_uuid);
    expect(keptThere).toEqual(keptHere);
    expect(keptHere.length).toBeGreaterThan(70);
    expect(keptHere.length).toBeLessThan(130);
    // The rule itself: the trace id's last 56 bits R are kept when R >= (1 - ratio) · 2^56.
    const expected = roots.filter((id) => BigInt(`0x${id.replace(/-/g, "").slice(-14)}`) >= 3n << 54n);
    expect(keptHere).toEqual(expected);
    expect(droppedCount(first.rt)).toBe(400 - expected.length);
  });

  it("ratio 0 drops everything no rule keeps; ratioByAgent overrides the ratio by root name (own keys only)", async () => {
    const none = sampled({ ratio: 0 });
    await run(none.rt, "agent");
    await none.rt.flush();
    expect(traceEvents(none.events)).toEqual([]);

    const { rt, events } = sampled({ ratio: 1, ratioByAgent: { "noisy-agent": 0, "quiet-agent": 1 } });
    await run(rt, "noisy-agent");
    await run(rt, "billing-agent");
    await run(rt, "constructor"); // a name on Object.prototype has no ratio of its own
    await rt.flush();
    expect([...new Set(traceEvents(events).map((e) => e.name))]).toEqual(["billing-agent", "lookup", "step", "constructor"]);
    expect(rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.message).toContain("by its root's ratioByAgent");
  });
});

describe("which events belong to a trace", () => {
  itOwnContext(
    "a mark outside every trace is delivered as it comes; one naming a parent no trace holds belongs to the trace it is emitted in",
    async () => {
      const ids = scriptedIds(DROPPED_ROOT);
      const { rt, events } = sampled({ ratio: 0.5 }, { idGenerator: ids.idGenerator });
      const elsewhere = { uuid: rootIdEndingWith("123456789abcde") }; // a span of another process
      const root = rt.pushScope("dropped-run", { category: "agent" });
      rt.mark("inside", { parent: elsewhere });
      rt.popScope(root);
      rt.mark("outside");
      await rt.flush();
      expect(labels(traceEvents(events))).toEqual(["mark:outside"]);

      ids.next(KEPT_ROOT);
      await rt.withScope("kept-run", () => void rt.mark("inside", { parent: elsewhere }), { category: "agent" });
      await rt.flush();
      expect(labels(traceEvents(events)).slice(1)).toEqual(["start:agent:kept-run", "mark:inside", "end:agent:kept-run"]);
    },
  );
});

describe("keep rules keep a trace whatever the ratio", () => {
  it("errors: a failed call anywhere in the trace, or an error-severity mark", async () => {
    const { rt, events } = sampled({ ratio: 0, keep: { errors: true } });
    await run(rt, "fine");
    await rt
      .withScope(
        "failing",
        async () => {
          await rt.withScope("inner", () => rt.executeTool("pay", {}, () => Promise.reject(new Error("card declined"))));
        },
        { category: "agent" },
      )
      .catch(() => undefined);
    await run(rt, "marked", () => rt.mark("audit", { severity: "error" }));
    await rt.flush();
    const roots = traceEvents(events).filter((e) => e.kind === "scope" && e.category === "agent" && e.scope_category === "start");
    expect(roots.map((e) => e.name)).toEqual(["failing", "marked"]);
    expect(traceEvents(events).filter((e) => e.name === "pay")).toHaveLength(2);
    expect(droppedCount(rt)).toBe(1);
  });

  it("suspended: a tool call that suspends (its tool.pending mark comes after its end), a top-level one too, and a run that resumes one", async () => {
    const { rt, events } = sampled({ ratio: 0, keep: { suspended: true } });
    const pending = { id: "req-1", kind: "approval", prompt: "may I?" };
    await run(rt, "plain");
    await rt.withScope("halting", () => rt.executeTool("approve", {}, () => ({ result: "waiting", pending })), { category: "agent" });
    await rt.executeTool("approve-alone", {}, () => ({ result: "waiting", pending }));
    await rt.withScope("resumed", () => undefined, { category: "agent", metadata: { "relaytrace.resume_of": "req-1" } });
    await rt.flush();
    expect(labels(traceEvents(events))).toEqual([
      "start:agent:halting",
      "start:tool:approve",
      "end:tool:approve",
      "mark:tool.pending",
      "end:agent:halting",
      "start:tool:approve-alone",
      "end:tool:approve-alone",
      "mark:tool.pending",
      "start:agent:resumed",
      "end:agent:resumed",
    ]);
  });

  itOwnContext("slowerThanMs: the root's duration; costAboveUsd: the summed cost of the trace's priced LLM calls", async () => {
    const pricing = {
      entries: [{ model: "m", inputPerMTok: 1_000_000, outputPerMTok: 1_000_000, pricingAsOf: "2026-01-01", pricingSource: "test" }],
    };
    const { rt, events } = sampled({ ratio: 0, keep: { slowerThanMs: 1_000, costAboveUsd: 5 } }, { pricing });
    const t0 = Date.UTC(2026, 0, 1) * 1000; // timestamps as numbers are epoch microseconds
    for (const [name, ms] of [
      ["slow", 1_500],
      ["quick", 900],
    ] as const) {
      const root = rt.pushScope(name, { category: "agent", timestamp: t0 });
      rt.popScope(root, { timestamp: t0 + ms * 1000 });
    }
    // $3 per call (2 input + 1 output tokens at $1 each): two calls pass $5, one does not.
    const call = () =>
      rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "m", messages: [] } }, () => ({
        model: "m",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "a" } }],
        usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
      }));
    await rt.withScope("expensive", async () => {
      await call();
      await call();
    });
    await rt.withScope("cheap", () => call());
    await rt.flush();
    const roots = traceEvents(events).filter((e) => e.kind === "scope" && e.scope_category === "start" && e.category !== "llm");
    expect(roots.map((e) => e.name)).toEqual(["slow", "expensive"]);
    expect(droppedCount(rt)).toBe(2);
  });
});

describe("maxBufferedBytes bounds what is held", () => {
  const big = "x".repeat(20_000);

  itOwnContext("a trace whose held events pass the bound is decided then, and its later events follow that decision", async () => {
    const kept = sampled({ ratio: 1, maxBufferedBytes: 10_000 });
    // An older, small trace stays held: the one that passed the bound by itself is decided.
    const small = kept.rt.withPropagation({ version: 1, parentUuid: rootIdEndingWith("0123456789abcd") }, () =>
      kept.rt.pushScope("small", { category: "agent" }),
    );
    const root = kept.rt.pushScope("agent", { category: "agent" });
    await kept.rt.executeTool("read", { big }, () => ({ result: "ok" }));
    await kept.rt.flush();
    // Decided (kept) before its root ended: what was held is delivered now, the rest as it comes.
    expect(labels(kept.events)).toEqual(["start:agent:agent", "start:tool:read", "end:tool:read"]);
    expect(small.name).toBe("small");
    kept.rt.mark("after");
    await kept.rt.flush();
    expect(labels(kept.events).slice(3)).toEqual(["mark:after"]);
    kept.rt.popScope(root);
    await kept.rt.flush();
    expect(labels(kept.events).slice(4)).toEqual(["end:agent:agent"]);

    const dropped = sampled({ ratio: 0, maxBufferedBytes: 10_000 });
    await dropped.rt.withScope("agent", async () => {
      await dropped.rt.executeTool("read", { big }, () => ({ result: "ok" }));
      await dropped.rt.flush();
      dropped.rt.mark("after");
    });
    await dropped.rt.flush();
    expect(traceEvents(dropped.events)).toEqual([]);
    const diagnostic = dropped.rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")!;
    expect(diagnostic.count).toBe(1);
    expect(diagnostic.message).toContain("maxBufferedBytes (10000)");
  });

  it("with many traces open, the oldest are decided first so the held bytes stay under the bound", async () => {
    const { rt, events } = sampled({ ratio: 1, maxBufferedBytes: 20_000 });
    const handles = [];
    for (let i = 0; i < 50; i++) {
      await rt.withPropagation({ version: 1, parentUuid: rootIdEndingWith(seededRandomHex(i + 1)()) }, async () => {
        handles.push(rt.pushScope(`open-${i}`, { category: "agent", input: "y".repeat(1_000) }));
      });
    }
    await rt.flush();
    const delivered = events.map((e) => e.name);
    // A prefix of the opening order was decided (kept) early; the newest are still held, within the bound.
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, i) => `open-${i}`));
    expect(delivered.length).toBeGreaterThan(30);
    expect(delivered.length).toBeLessThan(50);
    const held = (rt as unknown as { core: { publisher: { sampler: { bufferedBytes: number } } } }).core.publisher.sampler.bufferedBytes;
    expect(held).toBeLessThanOrEqual(20_000);
    expect(held).toBeGreaterThan(0);
  });
});

describe("shutdown and flush", () => {
  itOwnContext("flush() leaves an open trace held; shutdown() decides and delivers it", async () => {
    const { rt, events } = sampled({ ratio: 1 });
    rt.pushScope("never-ended", { category: "agent" });
    rt.mark("inside");
    await rt.forceFlush();
    expect(events).toEqual([]);
    await rt.shutdown();
    expect(labels(events)).toEqual(["start:agent:never-ended", "mark:inside"]);

    const dropping = sampled({ ratio: 0 });
    dropping.rt.pushScope("never-ended", { category: "agent" });
    await dropping.rt.shutdown();
    expect(traceEvents(dropping.events)).toEqual([]);
    expect(dropping.rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.message).toContain("decided at shutdown");
  });
});

describe("createRuntime({ sampling }) checks its options", () => {
  it.each([
    [{ ratio: 1.5 }, "createRuntime: sampling.ratio must be a number from 0 to 1 (got 1.5)"],
    [{ ratio: -0.1 }, "createRuntime: sampling.ratio must be a number from 0 to 1 (got -0.1)"],
    [{ ratio: Number.NaN }, "createRuntime: sampling.ratio must be a number from 0 to 1 (got NaN)"],
    [
      { ratioByAgent: { a: 2 } },
      "createRuntime: sampling.ratioByAgent must be an object of numbers from 0 to 1 (root name → ratio) (got an object)",
    ],
    [{ maxBufferedBytes: 0 }, "createRuntime: sampling.maxBufferedBytes must be a positive integer (got 0)"],
    [{ keep: { slowerThanMs: -1 } }, "createRuntime: sampling.keep.slowerThanMs must be a non-negative finite number (got -1)"],
    [{ keep: { costAboveUsd: "1" } }, 'createRuntime: sampling.keep.costAboveUsd must be a non-negative finite number (got "1")'],
    [{ keep: { errors: "yes" } }, 'createRuntime: sampling.keep.errors must be a boolean (got "yes")'],
    [{ keep: true }, "createRuntime: sampling.keep must be an object (got true)"],
    [{ rate: 0.1 }, 'createRuntime: unknown option "sampling.rate" (did you mean "sampling.ratio"?)'],
    [{ keep: { error: true } }, 'createRuntime: unknown option "sampling.keep.error" (did you mean "sampling.keep.errors"?)'],
  ])("%j is refused: %s", (sampling, message) => {
    expect(() => createRuntime({ sampling: sampling as SamplingOptions })).toThrow(new TypeError(message));
  });

  it("a sampling that is not an object is refused", () => {
    expect(() => createRuntime({ sampling: 0.1 as never })).toThrow(new TypeError("createRuntime: sampling must be an object (got 0.1)"));
  });
});
