// Every signal over OTLP/HTTP: marks as log records at /v1/logs, metric marks and the GenAI client
// metrics at /v1/metrics, spans at /v1/traces; decoded at a loopback receiver with the official
// OTLP protobuf schema (and as JSON for http/json).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { attributesOf, logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver, type ReceivedExport } from "../support/otlp.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  receivers.push(r);
  return r;
}

/** An agent run with a warning mark in its tool, an orphan mark, metric marks and one LLM call with usage. */
async function run(protocol: "http/protobuf" | "http/json", url: string) {
  const rt = createRuntime();
  const exporter = new OtelExporter({
    projection: "full",
    endpoint: `${url}/v1/traces`,
    protocol,
    logs: true,
    metrics: true,
    serviceName: "signals",
  });
  exporter.register(rt);
  let agentUuid = "";
  await rt.withScope(
    "agent",
    async (scope) => {
      agentUuid = scope.uuid;
      rt.mark("cache.miss", {
        data: { key: "k1", tries: 2 },
        severity: "warn",
        category: "custom",
        categoryProfile: { subtype: "acme.cache" },
        metadata: { shard: 3 },
      });
      await rt.executeLlm(
        "openai.chat",
        { headers: {}, content: { model: "gpt-test", messages: [{ role: "user", content: "hi" }] } },
        async () => ({
          id: "r1",
          model: "gpt-test-2026",
          choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
        }),
      );
      rt.metric("work", [
        {
          name: "jobs.done",
          kind: "counter",
          valueType: "u64",
          value: 3,
          unit: "{job}",
          description: "jobs finished",
          attributes: { queue: "a" },
        },
        { name: "queue.depth", kind: "up_down_counter", valueType: "i64", value: -2 },
        { name: "temperature", kind: "gauge", valueType: "f64", value: 21.5, unit: "Cel" },
        { name: "latency", kind: "histogram", valueType: "f64", value: 0.3, unit: "s", boundaries: [0.1, 0.5, 1] },
      ]);
    },
    { category: "agent" },
  );
  rt.mark("orphan.note", { data: "no parent" });
  await rt.shutdown();
  return { agentUuid, diagnostics: exporter.diagnostics() };
}

type Obj = Record<string, unknown>;
const list = (v: unknown) => (v as Obj[] | undefined) ?? [];

const logRecords = logRecordsOf;

function metrics(received: ReceivedExport[]): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const r of received.filter((x) => x.signal === "metrics")) {
    for (const rm of list(r.body["resourceMetrics"]))
      for (const sm of list(rm["scopeMetrics"])) for (const m of list(sm["metrics"])) out.set(String(m["name"]), m);
  }
  return out;
}

describe.each(["http/protobuf", "http/json"] as const)("all three signals over %s", (protocol) => {
  it("sends spans, log records and metrics to /v1/traces, /v1/logs and /v1/metrics with the declared content type", async () => {
    const r = await receiver();
    const { diagnostics } = await run(protocol, r.url);
    expect(diagnostics).toEqual([]);
    const mime = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    expect(new Set(r.received.map((x) => x.path))).toEqual(new Set(["/v1/traces", "/v1/logs", "/v1/metrics"]));
    expect(r.received.every((x) => x.contentType.includes(mime))).toBe(true);
    const spans = r.received.filter((x) => x.signal === "traces").flatMap((x) => spansOf(x.body));
    expect(spans.map((s) => s["name"]).sort()).toEqual(["agent", "mark:orphan.note", "openai.chat"]);
    // Every signal names relaytrace as its instrumentation scope, at the version package.json says.
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const scopes = r.received.flatMap((x) =>
      list(x.body["resourceSpans"] ?? x.body["resourceLogs"] ?? x.body["resourceMetrics"]).flatMap((rs) =>
        list(rs["scopeSpans"] ?? rs["scopeLogs"] ?? rs["scopeMetrics"]).map((ss) => ss["scope"] as Obj),
      ),
    );
    expect(scopes.length).toBeGreaterThanOrEqual(3);
    for (const scope of scopes) expect(scope).toMatchObject({ name: "relaytrace", version });
  });

  it("turns each non-metric mark into a log record: severity, body, NeMo Relay's attributes, the enclosing span's ids", async () => {
    const r = await receiver();
    const { agentUuid } = await run(protocol, r.url);
    const records = logRecords(r.received);
    expect(records).toHaveLength(2);
    const warn = records.find((l) => attributesOf(l["attributes"])["nemo_relay.mark.name"] === "cache.miss")!;
    expect(warn["severityNumber"]).toBe(13);
    expect(warn["severityText"]).toBe("WARN");
    expect(
      attributesOf((warn["body"] as Obj)["kvlistValue"] ? (warn["body"] as { kvlistValue: { values: unknown } }).kvlistValue.values : []),
    ).toEqual({ key: "k1", tries: 2 });
    const attrs = attributesOf(warn["attributes"]);
    expect(attrs["nemo_relay.atof.version"]).toBe("0.1");
    expect(attrs["nemo_relay.mark.parent_uuid"]).toBe(agentUuid);
    expect(typeof attrs["nemo_relay.mark.uuid"]).toBe("string");
    expect(attrs["nemo_relay.mark.category"]).toBe("custom");
    expect(JSON.parse(String(attrs["nemo_relay.mark.category_profile"]))).toEqual({ subtype: "acme.cache" });
    expect(JSON.parse(String(attrs["nemo_relay.mark.metadata"]))).toEqual({ shard: 3, "nemo_relay.log.severity": "warn" });
    const agentSpan = r.received
      .filter((x) => x.signal === "traces")
      .flatMap((x) => spansOf(x.body))
      .find((s) => s["name"] === "agent")!;
    expect(warn["traceId"]).toBe(agentSpan["traceId"]);
    expect(warn["spanId"]).toBe(agentSpan["spanId"]);
    const orphan = records.find((l) => attributesOf(l["attributes"])["nemo_relay.mark.name"] === "orphan.note")!;
    expect(orphan["severityNumber"]).toBe(9);
    expect((orphan["body"] as Obj)["stringValue"]).toBe("no parent");
    expect(orphan["traceId"] ?? "").toBe("");
    expect(orphan["spanId"] ?? "").toBe("");
  });

  it("turns metric marks into metrics of their declared kind, and LLM calls into the GenAI client metrics", async () => {
    const r = await receiver();
    await run(protocol, r.url);
    const m = metrics(r.received);
    const jobs = m.get("jobs.done")!;
    expect(jobs["unit"]).toBe("{job}");
    expect(jobs["description"]).toBe("jobs finished");
    const sum = jobs["sum"] as Obj;
    expect(sum["isMonotonic"]).toBe(true);
    expect(sum["aggregationTemporality"]).toBe(2); // cumulative
    const point = list(sum["dataPoints"])[0]!;
    expect(Number(point["asInt"])).toBe(3);
    expect(attributesOf(point["attributes"])).toEqual({ queue: "a" });
    const depth = m.get("queue.depth")!["sum"] as Obj;
    expect(depth["isMonotonic"] ?? false).toBe(false);
    expect(Number(list(depth["dataPoints"])[0]!["asInt"])).toBe(-2);
    expect(list((m.get("temperature")!["gauge"] as Obj)["dataPoints"])[0]!["asDouble"]).toBe(21.5);
    const latency = list((m.get("latency")!["histogram"] as Obj)["dataPoints"])[0]!;
    expect(latency["explicitBounds"]).toEqual([0.1, 0.5, 1]);
    expect(list(latency["bucketCounts"]).map(Number)).toEqual([0, 1, 0, 0]);

    const duration = m.get("gen_ai.client.operation.duration")!;
    expect(duration["unit"]).toBe("s");
    const d = list((duration["histogram"] as Obj)["dataPoints"])[0]!;
    expect(Number(d["count"])).toBe(1);
    expect(attributesOf(d["attributes"])).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.response.model": "gpt-test-2026",
    });
    const usage = list((m.get("gen_ai.client.token.usage")!["histogram"] as Obj)["dataPoints"]);
    const byType = new Map(usage.map((p) => [attributesOf(p["attributes"])["gen_ai.token.type"], Number(p["sum"])]));
    expect(byType).toEqual(
      new Map([
        ["input", 12],
        ["output", 5],
      ]),
    );
  });
});

describe("log record limits", () => {
  it("applies OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT to log records as to spans, JSON text still parsing", async () => {
    const r = await receiver();
    const before = process.env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"];
    process.env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"] = "40";
    let exporter: OtelExporter;
    try {
      exporter = new OtelExporter({ projection: "full", endpoint: `${r.url}/v1/traces`, protocol: "http/json", logs: true });
    } finally {
      if (before === undefined) delete process.env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"];
      else process.env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"] = before;
    }
    const rt = createRuntime();
    exporter.register(rt);
    await rt.withScope("run", () => {
      rt.mark("note", { metadata: { text: "x".repeat(500) } });
      rt.recordEvaluation({ name: "judge", score: 1, explanation: "y".repeat(500) });
    });
    await rt.shutdown();
    const records = logRecordsOf(r.received).map((l) => attributesOf(l["attributes"]));
    const note = records.find((a) => a["nemo_relay.mark.name"] === "note")!;
    const metadata = String(note["nemo_relay.mark.metadata"]);
    expect(metadata.length).toBeLessThan(120);
    expect(() => JSON.parse(metadata) as unknown).not.toThrow();
    const judged = records.find((a) => a["gen_ai.evaluation.name"] === "judge")!;
    expect(String(judged["gen_ai.evaluation.explanation"]).length).toBeLessThanOrEqual(40);
  });
});

describe("signal options", () => {
  it("sends logs and metrics to their own endpoints when given", async () => {
    const traces = await receiver();
    const other = await receiver();
    const rt = createRuntime();
    const exporter = new OtelExporter({
      projection: "gen_ai",
      endpoint: `${traces.url}/v1/traces`,
      logs: { endpoint: other.url },
      metrics: { endpoint: `${other.url}/custom/metrics` },
    });
    exporter.register(rt);
    await rt.withScope("a", () => rt.mark("m"), { category: "agent" });
    rt.metric("x", [{ name: "n", kind: "counter", valueType: "u64", value: 1 }]);
    await rt.shutdown();
    expect(new Set(other.received.map((x) => x.path))).toEqual(new Set(["/v1/logs", "/custom/metrics"]));
    expect(traces.received.map((x) => x.path)).toEqual(["/v1/traces"]);
  });

  it("rejects unknown signal options at construction, naming them", () => {
    expect(() => new OtelExporter({ projection: "full", logs: { endpont: "http://x" } as never })).toThrow(/logs\.endpont/);
    expect(() => new OtelExporter({ projection: "full", metrics: { endpoint: "ftp://x" } })).toThrow(/metrics\.endpoint/);
  });

  it("counts a failing logs endpoint in diagnostics without touching the app", async () => {
    const down = await startOtlpReceiver(() => 500);
    receivers.push(down);
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "full", endpoint: `${down.url}/v1/traces`, logs: true, timeoutMillis: 500 });
    exporter.register(rt);
    await rt.withScope("a", () => rt.mark("m"), { category: "agent" });
    await rt.shutdown();
    const codes = exporter.diagnostics().map((d) => d.code);
    expect(codes).toContain("otel.logs_export_failed");
    expect(codes).toContain("otel.export_failed");
  });
});
