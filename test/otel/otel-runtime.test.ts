import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { ToolExecutionInterceptOutcome } from "../../src/runtime/types.js";
import { createSequentialIds, createTestClock, EventCapture, SpanCapture } from "../../exporters/testing/index.js";

async function weatherRun(options: { deterministic: boolean }) {
  const rt = createRuntime(options.deterministic ? { clock: createTestClock(), idGenerator: createSequentialIds() } : {});
  const events = new EventCapture();
  const full = new SpanCapture({ projection: "full" });
  const oi = new SpanCapture({ projection: "openinference" });
  const genAi = new SpanCapture({ projection: "gen_ai" });
  events.register(rt);
  full.register(rt);
  oi.register(rt);
  genAi.register(rt);
  rt.registerToolExecutionIntercept("cache", 10, async (args, next): Promise<ToolExecutionInterceptOutcome> => {
    const out = await next(args);
    return {
      ...out,
      pendingMarks: [
        { name: "cache.lookup", category: "custom", categoryProfile: { subtype: "acme.cache" }, data: { hit: true }, severity: "info" },
        { name: "audit.recorded", data: { policy: "p1" } },
      ],
    };
  });
  await rt.withScope(
    "weather-agent",
    () =>
      rt.executeTool("get_weather", { city: "Oslo" }, () => ({ result: { temp_c: 4 }, annotation: { cache: "hit", rank: 1 } }), {
        toolCallId: "call_9f2",
      }),
    { category: "agent", input: { prompt: "Weather in Oslo?" }, metadata: { session_id: "conv-42" } },
  );
  await rt.shutdown();
  return { rt, events, full: await full.spans(), oi: await oi.spans(), genAi: await genAi.spans() };
}

describe("OtelExporter on the real runtime", () => {
  it("traces the worked example end to end in all three projections", async () => {
    const { events, full, oi, genAi } = await weatherRun({ deterministic: false });
    const agentStart = events.events.find((e) => e.kind === "scope" && e.name === "weather-agent")!;
    const toolStart = events.events.find((e) => e.kind === "scope" && e.name === "get_weather")!;
    const traceId = agentStart.uuid.replace(/-/g, "");

    expect(full.map((s) => s.name).sort()).toEqual(["get_weather", "mark:audit.recorded", "mark:cache.lookup", "weather-agent"]);
    expect(full.every((s) => s.spanContext().traceId === traceId)).toBe(true);
    const tool = full.find((s) => s.name === "get_weather")!;
    expect(tool.spanContext().spanId).toBe(toolStart.uuid.replace(/-/g, "").slice(16));
    expect(tool.status.code).toBe(SpanStatusCode.OK);
    expect(tool.attributes["nemo_relay.tool.result.annotation"]).toBe('{"cache":"hit","rank":1}');
    for (const name of ["mark:cache.lookup", "mark:audit.recorded"]) {
      const m = full.find((s) => s.name === name)!;
      expect(m.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
      expect(m.attributes["nemo_relay.mark.orphan"]).toBe(true);
      expect(m.startTime[0] * 1e9 + m.startTime[1]).toBeGreaterThan(tool.endTime[0] * 1e9 + tool.endTime[1]);
    }
    const agent = full.find((s) => s.name === "weather-agent")!;
    expect(agent.attributes["session.id"]).toBe("conv-42");
    expect(agent.status.code).toBe(SpanStatusCode.OK);

    expect(oi.find((s) => s.name === "get_weather")!.attributes["openinference.span.kind"]).toBe("TOOL");
    expect(genAi.map((s) => s.name).sort()).toEqual(["execute_tool get_weather", "invoke_agent weather-agent"]);
    expect(genAi.find((s) => s.name === "execute_tool get_weather")!.attributes["gen_ai.tool.call.id"]).toBe("call_9f2");
  });

  it("gives every span its own plain attribute object", async () => {
    const { full, oi, genAi } = await weatherRun({ deterministic: false });
    const spans = [...full, ...oi, ...genAi];
    for (const span of spans) {
      expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype);
      expect(Object.keys(span.attributes).every((key) => Object.hasOwn(span.attributes, key))).toBe(true);
    }
    expect(new Set(spans.map((s) => s.attributes)).size).toBe(spans.length);
    const tool = oi.find((s) => s.name === "get_weather")!;
    expect(Object.keys(tool.attributes).slice(0, 2)).toEqual(["openinference.span.kind", "nemo_relay.uuid"]);
  });

  it("records a failing tool as an ERROR span and shuts down cleanly", async () => {
    const rt = createRuntime();
    const full = new SpanCapture({ projection: "full" });
    full.register(rt);
    await expect(
      rt.withScope(
        "agent",
        () =>
          rt.executeTool("explode", {}, () => {
            throw new TypeError("bad");
          }),
        { category: "agent" },
      ),
    ).rejects.toThrow("bad");
    await rt.shutdown();
    const spans = await full.spans();
    const tool = spans.find((s) => s.name === "explode")!;
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(typeof tool.attributes["error.type"]).toBe("string");
    const agent = spans.find((s) => s.name === "agent")!;
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(rt.diagnostics().filter((d) => d.code.startsWith("otel."))).toEqual([]);
  });
});
