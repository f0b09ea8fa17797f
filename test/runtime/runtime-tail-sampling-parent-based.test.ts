// Tail sampling honours the sampled flag of a trace's caller as OpenTelemetry's parent-based
// sampling does: a W3C traceparent the trace continues, or the app's active OpenTelemetry span.
// The flag takes the ratio's place; the keep rules still keep what they match.
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { extractTraceContext } from "../../src/runtime/otel-context.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import type { SamplingOptions } from "../../src/runtime/types.js";
import { DROPPED_ROOT_RANDOM, rootIdEndingWith, run, traceEvents } from "../support/sampling.js";

const DROPPED_ROOT = rootIdEndingWith(DROPPED_ROOT_RANDOM);

function sampled(sampling: SamplingOptions): { rt: Runtime; events: AtofEvent[] } {
  const rt = createRuntime({ sampling });
  const events: AtofEvent[] = [];
  rt.subscribe("capture", (e) => void events.push(e));
  return { rt, events };
}

describe("a caller's W3C sampled flag is honoured as parent-based sampling does", () => {
  const traceparent = (flags: string) => `00-${DROPPED_ROOT.replace(/-/g, "").replace(/^0/, "4")}-00f067aa0ba902b7-${flags}`;

  it("flag 00 drops the trace whatever the ratio, flag 01 keeps it whatever the ratio, and a keep rule still keeps an unsampled trace", async () => {
    for (const [flags, ratio, kept] of [
      ["00", 1, false],
      ["01", 0, true],
    ] as const) {
      const { rt, events } = sampled({ ratio });
      const ctx = extractTraceContext({ traceparent: traceparent(flags) })!;
      await rt.withPropagation(ctx, () => run(rt, "served"));
      await rt.flush();
      expect(traceEvents(events).length > 0).toBe(kept);
      if (!kept) expect(rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.message).toContain("W3C sampled flag 0");
    }
    const { rt, events } = sampled({ ratio: 1, keep: { errors: true } });
    const ctx = extractTraceContext({ traceparent: traceparent("00") })!;
    await rt.withPropagation(ctx, () =>
      run(rt, "served", () => rt.executeTool("pay", {}, () => Promise.reject(new Error("no"))).catch(() => 0)),
    );
    await rt.withPropagation(ctx, () => run(rt, "served-fine"));
    await rt.flush();
    expect([...new Set(traceEvents(events).map((e) => e.name))]).toEqual(["served", "lookup", "step", "pay"]);
  });
});

describe("the app's active OpenTelemetry span is a parent too", () => {
  afterAll(() => context.disable());

  it("a trace started under the app's unsampled span is dropped, under its sampled span kept, whatever the ratio", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    for (const [traceFlags, ratio, kept] of [
      [0, 1, false],
      [1, 0, true],
    ] as const) {
      const { rt, events } = sampled({ ratio });
      const appSpan = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: "00f067aa0ba902b7", traceFlags });
      await context.with(appSpan, () => run(rt, "served"));
      await rt.flush();
      expect(traceEvents(events).length > 0).toBe(kept);
    }
  });
});
