import { afterEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import type { Meter, MeterProvider as MeterProviderApi } from "@opentelemetry/api";
import { DataPointType, MeterProvider, MetricReader, type Histogram } from "@opentelemetry/sdk-metrics";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, defineTool, type Metric } from "../../src/agent/index.js";
import { createLoopInstruments, DURATION_BUCKETS, recordLoopMetric } from "../../src/agent/loop-instruments.js";
import { PrometheusMeter, prometheusName } from "../../src/agent/prometheus-meter.js";
import { openaiReply, reply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** A pull reader: the test collects when it chooses, nothing runs on a timer. */
class PullReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface Point {
  attributes: Record<string, unknown>;
  value: number | { count: number; sum: number; boundaries: number[]; counts: number[] };
}
interface Collected {
  scope: { name: string; version?: string };
  metrics: Map<string, { unit: string; description: string; points: Point[] }>;
}

async function collect(reader: PullReader): Promise<Collected> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  expect(resourceMetrics.scopeMetrics).toHaveLength(1);
  const scope = resourceMetrics.scopeMetrics[0]!;
  const metrics: Collected["metrics"] = new Map();
  for (const m of scope.metrics) {
    const points = (m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]).map((p) => {
      if (m.dataPointType !== DataPointType.HISTOGRAM) return { attributes: p.attributes, value: p.value as number };
      const h = p.value as Histogram;
      return {
        attributes: p.attributes,
        value: { count: h.count, sum: h.sum ?? Number.NaN, boundaries: h.buckets.boundaries, counts: h.buckets.counts },
      };
    });
    metrics.set(m.descriptor.name, { unit: m.descriptor.unit, description: m.descriptor.description, points });
  }
  return { scope: scope.scope, metrics };
}

/** One run with a tool call (3+2, then 4+2 tokens) and one run whose provider call fails. */
async function runScenario(extra: { meterProvider?: unknown; onMetric?: (m: Metric) => void }) {
  const srv = await startProvider([
    openaiReply(null, [{ id: "c1", name: "add", arguments: '{"a":2,"b":3}' }], { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }),
    reply("openai", "5"),
    { status: 500, json: { error: { message: "down" } } },
  ]);
  closers.push(srv.close);
  const add = defineTool({ name: "add", description: "add", execute: (a) => String(Number(a.a) + Number(a.b)) });
  const client = createClient({
    baseUrl: srv.url,
    style: "openai",
    model: "gpt-x",
    apiKey: "k",
    retries: 0,
    runtime: createRuntime(),
    ...(extra as { meterProvider?: MeterProviderApi }),
    ...(extra.onMetric ? { onMetric: extra.onMetric } : {}),
  });
  const toolkit = await createToolkit({ tools: [add] });
  const first = await client.run("add", { toolkit });
  expect(first.text).toBe("5");
  await expect(client.run("again", { toolkit })).rejects.toThrow();
  return client;
}

const point = (c: Collected, name: string, attributes: Record<string, unknown>) =>
  c.metrics.get(name)?.points.find((p) => JSON.stringify(p.attributes) === JSON.stringify(attributes))?.value;

describe("the loop's measurements on an OpenTelemetry MeterProvider", () => {
  it("records llm, tool and run measurements with their units and attributes, equal to client.metrics() and onMetric", async () => {
    const reader = new PullReader();
    const provider = new MeterProvider({ readers: [reader] });
    const seen: Metric[] = [];
    const client = await runScenario({ meterProvider: provider, onMetric: (m) => seen.push(m) });
    const got = await collect(reader);
    expect(got.scope).toMatchObject({ name: "relaytrace", version: VERSION });
    expect([...got.metrics.keys()].sort()).toEqual([
      "toolnexus.llm.request.duration",
      "toolnexus.llm.requests",
      "toolnexus.llm.tokens",
      "toolnexus.run.errors",
      "toolnexus.tool.calls",
      "toolnexus.tool.duration",
    ]);
    const units = Object.fromEntries([...got.metrics].map(([name, m]) => [name, m.unit]));
    expect(units).toEqual({
      "toolnexus.llm.requests": "{request}",
      "toolnexus.llm.tokens": "{token}",
      "toolnexus.llm.request.duration": "s",
      "toolnexus.tool.calls": "{call}",
      "toolnexus.tool.duration": "s",
      "toolnexus.run.errors": "{error}",
    });
    expect(got.metrics.get("toolnexus.llm.requests")!.description).toBe("Total LLM requests.");

    // What onMetric received is what the meter counted.
    const llm = seen.filter((m) => m.event === "llm");
    const tools = seen.filter((m) => m.event === "tool");
    expect(llm.map((m) => m.status)).toEqual(["ok", "ok", "error"]);
    expect(tools).toHaveLength(1);
    expect(seen.filter((m) => m.event === "run").map((m) => m.error !== undefined)).toEqual([false, true]);

    expect(point(got, "toolnexus.llm.requests", { model: "gpt-x", status: "ok" })).toBe(2);
    expect(point(got, "toolnexus.llm.requests", { model: "gpt-x", status: "error" })).toBe(1);
    expect(point(got, "toolnexus.llm.tokens", { type: "prompt" })).toBe(7);
    expect(point(got, "toolnexus.llm.tokens", { type: "completion" })).toBe(4);
    expect(point(got, "toolnexus.tool.calls", { tool: "add", source: "native", is_error: false, pending: false })).toBe(1);
    expect(point(got, "toolnexus.run.errors", { model: "gpt-x" })).toBe(1);
    const llmDuration = point(got, "toolnexus.llm.request.duration", { model: "gpt-x" }) as Exclude<Point["value"], number>;
    expect(llmDuration.count).toBe(3);
    expect(llmDuration.boundaries).toEqual(DURATION_BUCKETS);
    expect(llmDuration.sum).toBe(llm.reduce((s, m) => s + m.ms / 1000, 0));
    const toolDuration = point(got, "toolnexus.tool.duration", { tool: "add" }) as Exclude<Point["value"], number>;
    expect(toolDuration).toMatchObject({ count: 1, sum: tools[0]!.ms / 1000 });

    // The built-in Prometheus text counts the same.
    const text = client.metrics();
    for (const line of [
      'toolnexus_llm_requests_total{model="gpt-x",status="ok"} 2',
      'toolnexus_llm_requests_total{model="gpt-x",status="error"} 1',
      'toolnexus_llm_tokens_total{type="prompt"} 7',
      'toolnexus_llm_tokens_total{type="completion"} 4',
      'toolnexus_tool_calls_total{tool="add",source="native",is_error="false",pending="false"} 1',
      'toolnexus_run_errors_total{model="gpt-x"} 1',
      'toolnexus_llm_request_duration_seconds_count{model="gpt-x"} 3',
      `toolnexus_llm_request_duration_seconds_sum{model="gpt-x"} ${llmDuration.sum}`,
      `toolnexus_tool_duration_seconds_sum{tool="add"} ${toolDuration.sum}`,
    ])
      expect(text.split("\n")).toContain(line);
    await provider.shutdown();
  });

  it("a meterProvider whose instruments throw never breaks the run, and client.metrics() still counts", async () => {
    let thrown = 0;
    const boom = () => {
      thrown += 1;
      throw new Error("meter down");
    };
    const throwingMeter = { createCounter: () => ({ add: boom }), createHistogram: () => ({ record: boom }) } as unknown as Meter;
    const seen: Metric[] = [];
    const client = await runScenario({ meterProvider: { getMeter: () => throwingMeter }, onMetric: (m) => seen.push(m) });
    expect(seen).toHaveLength(6);
    // 3 requests, 2 token pairs, 3 LLM durations, 1 tool call and its duration, 1 run error (13): each reached the app's meter.
    expect(thrown).toBe(13);
    expect(client.metrics()).toContain('toolnexus_llm_requests_total{model="gpt-x",status="ok"} 2\n');
    expect(client.metrics()).toContain('toolnexus_run_errors_total{model="gpt-x"} 1\n');
  });

  it("a meterProvider that cannot make a meter or instruments leaves the client working", async () => {
    const noMeter = await runScenario({
      meterProvider: {
        getMeter: () => {
          throw new Error("no meter");
        },
      },
    });
    expect(noMeter.metrics()).toContain('toolnexus_tool_calls_total{tool="add",source="native",is_error="false",pending="false"} 1\n');
    const junk = await runScenario({ meterProvider: { getMeter: () => ({ createCounter: () => undefined, createHistogram: () => 7 }) } });
    expect(junk.metrics()).toContain('toolnexus_llm_tokens_total{type="prompt"} 7\n');
  });

  it("an invalid meterProvider is refused at createClient, naming the option", () => {
    const base = { baseUrl: "http://127.0.0.1:9", style: "openai", model: "m", apiKey: "k", runtime: createRuntime() } as const;
    for (const bad of [{}, 5, "provider", null, { getMeter: "no" }])
      expect(() => createClient({ ...base, meterProvider: bad as unknown as MeterProviderApi })).toThrow(
        /option "meterProvider".*MeterProvider \(an object with a getMeter method\)/,
      );
  });
});

describe("the built-in Prometheus meter", () => {
  it("renders the loop's instruments with every bucket, sorted series and escaped labels", () => {
    const meter = new PrometheusMeter();
    const instruments = createLoopInstruments(meter);
    const metrics: Metric[] = [
      { event: "llm", model: "b", status: "ok", ms: 300, promptTokens: 10, completionTokens: 5, runUuid: "r", turn: 0 },
      { event: "llm", model: 'a"\\\n', status: "error", ms: 70_000, promptTokens: 0, completionTokens: 0, runUuid: "r", turn: 1 },
      { event: "llm", model: "b", status: "ok", ms: 50, promptTokens: 1, completionTokens: 1, runUuid: "r", turn: 2 },
      { event: "tool", tool: "t", source: "mcp", isError: true, ms: 2000, runUuid: "r", turn: 0, toolCallId: "c" },
      { event: "tool", tool: "q", source: "builtin", isError: false, ms: 1, pending: true, runUuid: "r", turn: 0, toolCallId: "d" },
      { event: "run", model: "b", turns: 3, toolCalls: 2, totalTokens: 17, ms: 5, error: "x", runUuid: "r" },
      { event: "run", model: "b", turns: 3, toolCalls: 2, totalTokens: 17, ms: 5, runUuid: "r" },
    ];
    for (const m of metrics) recordLoopMetric(instruments, m);
    expect(meter.render()).toBe(
      [
        "# HELP toolnexus_llm_requests_total Total LLM requests.",
        "# TYPE toolnexus_llm_requests_total counter",
        'toolnexus_llm_requests_total{model="a\\"\\\\\\n",status="error"} 1',
        'toolnexus_llm_requests_total{model="b",status="ok"} 2',
        "# HELP toolnexus_llm_tokens_total Total tokens, by type.",
        "# TYPE toolnexus_llm_tokens_total counter",
        'toolnexus_llm_tokens_total{type="completion"} 6',
        'toolnexus_llm_tokens_total{type="prompt"} 11',
        "# HELP toolnexus_llm_request_duration_seconds LLM request duration in seconds.",
        "# TYPE toolnexus_llm_request_duration_seconds histogram",
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="0.05"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="0.1"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="0.25"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="0.5"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="1"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="2.5"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="5"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="10"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="30"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="60"} 0',
        'toolnexus_llm_request_duration_seconds_bucket{model="a\\"\\\\\\n",le="+Inf"} 1',
        'toolnexus_llm_request_duration_seconds_sum{model="a\\"\\\\\\n"} 70',
        'toolnexus_llm_request_duration_seconds_count{model="a\\"\\\\\\n"} 1',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="0.05"} 1',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="0.1"} 1',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="0.25"} 1',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="0.5"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="1"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="2.5"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="5"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="10"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="30"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="60"} 2',
        'toolnexus_llm_request_duration_seconds_bucket{model="b",le="+Inf"} 2',
        'toolnexus_llm_request_duration_seconds_sum{model="b"} 0.35',
        'toolnexus_llm_request_duration_seconds_count{model="b"} 2',
        "# HELP toolnexus_tool_calls_total Total tool calls.",
        "# TYPE toolnexus_tool_calls_total counter",
        'toolnexus_tool_calls_total{tool="q",source="builtin",is_error="false",pending="true"} 1',
        'toolnexus_tool_calls_total{tool="t",source="mcp",is_error="true",pending="false"} 1',
        "# HELP toolnexus_tool_duration_seconds Tool execution duration in seconds.",
        "# TYPE toolnexus_tool_duration_seconds histogram",
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="0.05"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="0.1"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="0.25"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="0.5"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="1"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="2.5"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="5"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="10"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="30"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="60"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="q",le="+Inf"} 1',
        'toolnexus_tool_duration_seconds_sum{tool="q"} 0.001',
        'toolnexus_tool_duration_seconds_count{tool="q"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="0.05"} 0',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="0.1"} 0',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="0.25"} 0',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="0.5"} 0',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="1"} 0',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="2.5"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="5"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="10"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="30"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="60"} 1',
        'toolnexus_tool_duration_seconds_bucket{tool="t",le="+Inf"} 1',
        'toolnexus_tool_duration_seconds_sum{tool="t"} 2',
        'toolnexus_tool_duration_seconds_count{tool="t"} 1',
        "# HELP toolnexus_run_errors_total Total run errors.",
        "# TYPE toolnexus_run_errors_total counter",
        'toolnexus_run_errors_total{model="b"} 1',
        "",
      ].join("\n"),
    );
  });

  it("derives Prometheus names from name and unit, drops what a counter or histogram cannot take, and refuses other kinds", () => {
    expect(prometheusName("toolnexus.llm.requests", "{request}", "counter")).toBe("toolnexus_llm_requests_total");
    expect(prometheusName("toolnexus.tool.duration", "s", "histogram")).toBe("toolnexus_tool_duration_seconds");
    expect(prometheusName("queue-depth", "By", "histogram")).toBe("queue_depth_By");
    expect(prometheusName("done_total", undefined, "counter")).toBe("done_total");
    const meter = new PrometheusMeter();
    const counter = meter.createCounter("jobs", { description: "Jobs." });
    const histogram = meter.createHistogram("wait", { unit: "s", description: "Wait.", advice: { explicitBucketBoundaries: [1] } });
    counter.add(-1);
    counter.add(Number.NaN);
    counter.add(2, { ok: true });
    histogram.record(Number.POSITIVE_INFINITY);
    histogram.record(0.5);
    expect(meter.render()).toBe(
      [
        "# HELP jobs_total Jobs.",
        "# TYPE jobs_total counter",
        'jobs_total{ok="true"} 2',
        "# HELP wait_seconds Wait.",
        "# TYPE wait_seconds histogram",
        'wait_seconds_bucket{le="1"} 1',
        'wait_seconds_bucket{le="+Inf"} 1',
        "wait_seconds_sum 0.5",
        "wait_seconds_count 1",
        "",
      ].join("\n"),
    );
    expect(() => meter.createGauge("g")).toThrow(/counters and histograms only, not gauges \("g"\)/);
    expect(() => meter.createObservableCounter("o")).toThrow(TypeError);
  });
});
