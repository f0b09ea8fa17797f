import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attr,
  readExported,
  spansOf,
  startFileCollector,
  type Collector,
  type LogsRequest,
  type MetricsRequest,
  type OtlpSpan,
  type TracesRequest,
} from "../support/interop/collector.js";
import { eventually } from "../support/interop/program.js";
import { runGenAiLatestScenario } from "../support/interop/scenarios.js";

/**
 * A program that sets OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental sends the gen_ai
 * projection's traces, logs and metrics to a real OpenTelemetry Collector (built with the
 * collector builder at the pinned release): what the collector writes out follows
 * semantic-conventions-genai v0.1.0.
 */
describe("OpenTelemetry Collector: the gen_ai projection under semantic-conventions-genai v0.1.0", () => {
  let collector: Collector;
  let conventions: string;

  beforeAll(async () => {
    collector = await startFileCollector();
    ({ conventions } = await runGenAiLatestScenario(collector.otlpHttp, {
      OTEL_SEMCONV_STABILITY_OPT_IN: "http,gen_ai_latest_experimental",
    }));
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
  });

  const spans = async (): Promise<OtlpSpan[]> =>
    (
      await eventually(
        "6 spans in the traces file",
        async () => spansOf(await readExported<TracesRequest>(collector.files.traces)),
        (s) => s.length >= 6,
      )
    ).map((s) => s.span);

  it("the program chose v0.1.0 from the environment", () => {
    expect(conventions).toBe("0.1.0");
  });

  it("writes the workflow as an internal agent span named by gen_ai.agent.name, and an agent span without provider or id", async () => {
    const all = await spans();
    expect(all.map((s) => s.name).sort()).toEqual([
      "chat interop-model",
      "chat interop-model",
      "chat interop-model",
      "execute_tool check_stock",
      "invoke_agent stock-agent",
      "invoke_workflow inventory-crew",
    ]);
    const workflow = all.find((s) => s.name === "invoke_workflow inventory-crew")!;
    expect(workflow.kind).toBe(1); // INTERNAL
    expect(attr(workflow.attributes, "gen_ai.operation.name")).toBe("invoke_workflow");
    expect(attr(workflow.attributes, "gen_ai.agent.name")).toBe("inventory-crew");
    expect(attr(workflow.attributes, "gen_ai.workflow.name")).toBeUndefined();
    const agent = all.find((s) => s.name === "invoke_agent stock-agent")!;
    expect(agent.parentSpanId).toBe(workflow.spanId);
    expect(attr(agent.attributes, "gen_ai.provider.name")).toBeUndefined();
    const chats = all.filter((s) => s.name === "chat interop-model" && s.parentSpanId === agent.spanId);
    expect(chats.map((c) => attr(c.attributes, "gen_ai.usage.cache_read.input_tokens"))).toContain(100);
    expect(chats.every((c) => attr(c.attributes, "gen_ai.provider.name") === "openai")).toBe(true);
  });

  it("writes the failed model call's gen_ai.client.inference.exception as a WARN log record in its span", async () => {
    const failed = (await spans()).find((s) => s.name === "chat interop-model" && s.status?.code === 2)!;
    const records = await eventually(
      "the exception log record",
      async () =>
        (await readExported<LogsRequest>(collector.files.logs)).flatMap((r) =>
          r.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords ?? [])),
        ),
      (r) => r.length >= 1,
    );
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record!.eventName).toBe("gen_ai.client.inference.exception");
    expect(record!.severityNumber).toBe(13);
    expect(record!.traceId).toBe(failed.traceId);
    expect(record!.spanId).toBe(failed.spanId);
    expect(attr(record!.attributes, "exception.type")).toBe("RateLimitError");
  });

  it("writes the v0.1.0 inference, agent and tool metrics and none of v1.41's", async () => {
    const exported = async () =>
      (await readExported<MetricsRequest>(collector.files.metrics)).flatMap((r) =>
        r.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics ?? [])),
      );
    type Metric = Awaited<ReturnType<typeof exported>>[number];
    // Cumulative: the last export of an instrument holds the run's total.
    const lastOf = (ms: Metric[], name: string) => ms.filter((m) => m.name === name).at(-1);
    const inputTotal = (ms: Metric[]) =>
      (lastOf(ms, "gen_ai.client.inference.usage.input_tokens")?.sum?.dataPoints ?? []).reduce(
        (n, p) => n + Number(p.asInt ?? p.asDouble),
        0,
      );
    // The program's last export (at shutdown) carries every call's tokens: 120 + 180 + 0 for the failed one.
    const metrics = await eventually("the run's final metrics export", exported, (ms) => inputTotal(ms) === 300);
    const names = new Set(metrics.map((m) => m.name));
    for (const name of [
      "gen_ai.client.inference.duration",
      "gen_ai.client.inference.usage.input_tokens",
      "gen_ai.client.inference.usage.output_tokens",
      "gen_ai.client.inference.usage.cache_read.input_tokens",
      "gen_ai.client.inference.usage.cache_write.input_tokens",
      "gen_ai.client.inference.usage.reasoning.output_tokens",
      "gen_ai.client.inference.operation.input_tokens",
      "gen_ai.client.inference.operation.output_tokens",
      "gen_ai.invoke_agent.duration",
      "gen_ai.invoke_agent.inference_calls",
      "gen_ai.invoke_agent.tool_calls",
      "gen_ai.execute_tool.duration",
    ]) {
      expect(names, name).toContain(name);
    }
    expect(names).not.toContain("gen_ai.client.operation.duration");
    expect(names).not.toContain("gen_ai.client.token.usage");

    const input = lastOf(metrics, "gen_ai.client.inference.usage.input_tokens")!;
    expect(input.unit).toBe("{token}");
    expect(input.sum?.isMonotonic).toBe(true);
    expect((input.sum?.dataPoints ?? []).every((p) => attr(p.attributes, "gen_ai.token.modality") === "unknown")).toBe(true);
    const toolCalls = lastOf(metrics, "gen_ai.invoke_agent.tool_calls")?.histogram?.dataPoints ?? [];
    const agentPoint = toolCalls.find((p) => attr(p.attributes, "gen_ai.agent.name") === "stock-agent")!;
    expect(Number(agentPoint.sum)).toBe(1);
  });
});
