import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attr,
  readExported,
  spansOf,
  startExampleCollector,
  startFileCollector,
  type Collector,
  type LogsRequest,
  type MetricsRequest,
  type TracesRequest,
} from "../support/interop/collector.js";
import { jaegerServices, jaegerTrace, jaegerTraces, startJaeger, type Jaeger } from "../support/interop/jaeger.js";
import { eventually } from "../support/interop/program.js";
import { leadingEnv, readmeCommands, runCurlLine, runRelaytraceLine, withPorts } from "../support/interop/readme-commands.js";
import { runAgentScenario, runDemo, traceIdOf, type AgentScenarioResult } from "../support/interop/scenarios.js";

/**
 * relaytrace behind a real OpenTelemetry Collector built with the collector builder at the
 * pinned release: what the collector receives and writes out, and the shipped example
 * configuration's tail sampling in front of a real Jaeger.
 */

describe("OpenTelemetry Collector: OTLP receiver, batch processor, file exporter", () => {
  let collector: Collector;
  let run: AgentScenarioResult;
  let traceId: string;

  beforeAll(async () => {
    collector = await startFileCollector();
    const otel = {
      protocol: "http/protobuf" as const,
      logs: { endpoint: `${collector.otlpHttp}/v1/logs` },
      metrics: { endpoint: `${collector.otlpHttp}/v1/metrics`, exportIntervalMillis: 200 },
    };
    run = await runAgentScenario({ otlp: collector.otlpHttp, projection: "full", serviceName: "relaytrace-collector", otel });
    traceId = traceIdOf(run.traceparents[0]!);
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
  });

  it("writes every span relaytrace sent (OTLP/HTTP protobuf), ids and structure intact", async () => {
    const spans = await eventually(
      "13 spans in the traces file",
      async () => spansOf(await readExported<TracesRequest>(collector.files.traces)),
      (s) => s.length >= 13,
    );
    expect(spans).toHaveLength(13);
    for (const { service } of spans) expect(service).toBe("relaytrace-collector");
    const agentTrace = spans.filter((s) => s.span.traceId === traceId).map((s) => s.span);
    expect(agentTrace).toHaveLength(11);
    const agents = agentTrace.filter((s) => s.name === "billing-agent");
    const root = agents.find((s) => !s.parentSpanId)!;
    expect(agents.find((s) => s !== root)!.parentSpanId).toBe(root.spanId);
    const charge = spans.find((s) => s.span.name === "charge_card")!.span;
    expect(charge.status).toMatchObject({ code: 2, message: "card declined" });
    expect(spans.find((s) => s.span.name === "reconcile-orders")!.span.spanId).toBe(charge.parentSpanId);
    expect(agentTrace.find((s) => s.name === "lookup_order")!.status).toMatchObject({ code: 2, message: "order database unavailable" });
  });

  it("writes every mark as a log record, in the trace of its span", async () => {
    const records = await eventually(
      "mark log records",
      async () =>
        (await readExported<LogsRequest>(collector.files.logs)).flatMap((r) =>
          r.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords ?? [])),
        ),
      (r) => r.length >= 3,
    );
    const byMark = new Map(records.map((r) => [attr(r.attributes, "nemo_relay.mark.name"), r]));
    expect([...byMark.keys()].sort()).toEqual(expect.arrayContaining(["stock.audited", "stock.low", "tool.pending"]));
    expect(byMark.get("stock.audited")!.severityNumber).toBe(9);
    expect(byMark.get("stock.low")!.severityNumber).toBe(13);
    expect(byMark.get("tool.pending")!.traceId).toBe(traceId);
  });

  it("writes metric marks and the GenAI client metrics", async () => {
    const names = await eventually(
      "metrics",
      async () =>
        (await readExported<MetricsRequest>(collector.files.metrics)).flatMap((r) =>
          r.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => (sm.metrics ?? []).map((m) => m))),
        ),
      (ms) => ms.some((m) => m.name === "relaytrace.interop.orders_checked") && ms.some((m) => m.name === "gen_ai.client.token.usage"),
    );
    const orders = names.find((m) => m.name === "relaytrace.interop.orders_checked")!;
    expect(orders.unit).toBe("{order}");
    expect(orders.sum).toMatchObject({ isMonotonic: true });
    expect(names.find((m) => m.name === "gen_ai.client.token.usage")!.histogram).toBeDefined();
  });
});

describe("examples/collector/config.yaml in front of Jaeger", () => {
  let jaeger: Jaeger;
  let collector: Collector;

  beforeAll(async () => {
    jaeger = await startJaeger();
    // Keep no healthy trace, so what reaches Jaeger is exactly what the error policies kept.
    collector = await startExampleCollector({
      BACKEND_OTLP_ENDPOINT: jaeger.otlpGrpc,
      BACKEND_TLS_INSECURE: "true",
      TAIL_SAMPLING_PERCENTAGE: "0",
      TAIL_SAMPLING_DECISION_WAIT: "2s",
    });
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
    await jaeger?.stop();
  });

  it("keeps errored traces whole (across the resume) and drops healthy ones", async () => {
    // A healthy trace first (the demo), then the agent scenario: a failed tool result, a
    // resume in a second process, and a separate trace whose tool span is an error.
    await runDemo(["--otlp", `${collector.otlpHttp}/v1/traces`]);
    const run = await runAgentScenario({ otlp: collector.otlpHttp, projection: "full", serviceName: "relaytrace-sampled" });
    const agentTraceId = traceIdOf(run.traceparents[0]!);

    const agent = await eventually(
      "the agent trace with both processes' spans",
      () => jaegerTrace(jaeger, agentTraceId),
      (t) => (t?.spans.length ?? 0) >= 11,
    );
    expect(agent!.spans).toHaveLength(11);
    const traces = await eventually(
      "the reconcile trace",
      () => jaegerTraces(jaeger, "relaytrace-sampled"),
      (ts) => ts.length >= 2,
    );
    expect(traces.find((t) => t.spans.some((s) => s.operationName === "charge_card"))!.spans).toHaveLength(2);

    // The demo's decision was due long before these arrived (same decision wait, sent earlier).
    expect(await jaegerServices(jaeger)).not.toContain("relaytrace-demo");
  });
});

describe("the documented collector commands (docs/opentelemetry.md)", () => {
  let jaeger: Jaeger;
  let collector: Collector;

  afterAll(async () => {
    await collector?.stop();
    await jaeger?.stop();
  });

  it("start the example configuration in front of Jaeger, and the demo arrives through it", async () => {
    const [docker, otelcol, demo, curl] = await readmeCommands("collector");
    expect(docker).toContain("-p 14317:4317");
    jaeger = await startJaeger();
    const { env, rest } = leadingEnv(otelcol!);
    expect(rest).toBe("otelcol-contrib --config examples/collector/config.yaml");
    const ports: Record<number, string> = { 14317: jaeger.otlpGrpc, 16686: jaeger.query.replace("http://", "") };
    collector = await startExampleCollector(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, withPorts(v, ports)])));
    ports[4318] = collector.otlpHttp.replace("http://", "");

    await runRelaytraceLine(withPorts(demo!, ports));
    const answer = await eventually(
      "the documented query answering with the demo trace",
      async () => (await runCurlLine(withPorts(curl!, ports))) as { data: { spans: { operationName: string }[] }[] | null },
      (a) => (a.data?.length ?? 0) > 0,
    );
    expect(answer.data![0]!.spans.map((s) => s.operationName)).toContain("weather-agent");
  }, 120_000);
});
