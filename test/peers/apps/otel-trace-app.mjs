// An app on OpenTelemetry JS SDK 2 with the trace SDK only (@opentelemetry/sdk-trace-base and
// sdk-trace-node 2.x, no sdk-node, no OTLP exporter, no logs or metrics SDK):
// `node otel-trace-app.mjs SCENARIO` inside its install prints one JSON line for the test.
import { trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { createRuntime } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
import { collectingExporter } from "./collecting-exporter.mjs";

function appProvider(sampler, exporter) {
  return new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "shop" }),
    sampler,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
}

/** A registered NodeTracerProvider (the app's resource); a relaytrace tool runs inside the app's request span. */
async function join() {
  const appSpans = collectingExporter();
  const provider = appProvider(new AlwaysOnSampler(), appSpans);
  provider.register();
  const rt = createRuntime();
  new OtelExporter({ projection: "gen_ai", tracerProvider: trace.getTracerProvider() }).register(rt);
  const tracer = trace.getTracer("shop");
  let toolUuid = "";
  let activeInTool;
  const request = await tracer.startActiveSpan("request", async (span) => {
    await rt.executeTool("lookup", { city: "Paris" }, (_args, ctx) => {
      toolUuid = ctx.toolUuid;
      activeInTool = trace.getActiveSpan()?.spanContext().spanId;
      return { result: { temperature: 21 } };
    });
    span.end();
    return span.spanContext();
  });
  await rt.shutdown();
  await provider.shutdown();
  const spans = appSpans.spans.map((s) => ({
    name: s.name,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    serviceName: s.resource.attributes["service.name"],
  }));
  return { request: { traceId: request.traceId, spanId: request.spanId }, toolUuid, activeInTool, spans };
}

/** The same agent run under an app provider that samples nothing, and one that samples everything. */
async function sampler() {
  const names = {};
  for (const [label, Sampler] of [
    ["alwaysOff", AlwaysOffSampler],
    ["alwaysOn", AlwaysOnSampler],
  ]) {
    const appSpans = collectingExporter();
    const provider = appProvider(new Sampler(), appSpans);
    const rt = createRuntime();
    new OtelExporter({ projection: "full", tracerProvider: provider }).register(rt);
    await rt.withScope("agent", () => rt.executeTool("lookup", {}, () => ({ result: "ok" })), { category: "agent" });
    await rt.shutdown();
    await provider.shutdown();
    names[label] = appSpans.spans.map((s) => s.name).sort();
  }
  return names;
}

async function agentRun(rt) {
  await rt.withScope(
    "agent",
    async () => {
      rt.mark("cache.miss", { data: { key: "k1" } });
      await rt.executeTool("lookup", { city: "Paris" }, () => ({ result: { temperature: 21 } }));
    },
    { category: "agent" },
  );
}

/** relaytrace's own OTLP pipeline, protobuf to RECEIVER_URL/v1/traces and JSON to RECEIVER_URL/json/v1/traces. */
async function send() {
  const url = process.env["RECEIVER_URL"];
  const rt = createRuntime();
  const protobuf = new OtelExporter({ projection: "gen_ai", endpoint: `${url}/v1/traces`, serviceName: "shop" });
  const json = new OtelExporter({ projection: "gen_ai", endpoint: `${url}/json/v1/traces`, protocol: "http/json", serviceName: "shop" });
  protobuf.register(rt);
  json.register(rt);
  await agentRun(rt);
  await rt.shutdown();
  return { diagnostics: [...protobuf.diagnostics(), ...json.diagnostics()] };
}

/** `logs: true` without the logs SDK installed: a diagnostic, and the spans still go out. */
async function logs() {
  const url = process.env["RECEIVER_URL"];
  const rt = createRuntime();
  const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${url}/v1/traces`, logs: true });
  exporter.register(rt);
  await agentRun(rt);
  await rt.shutdown();
  return { diagnostics: exporter.diagnostics() };
}

const SCENARIOS = { join, sampler, send, logs };
const name = process.argv[2];
const scenario = SCENARIOS[name];
if (!scenario) throw new Error(`unknown scenario ${JSON.stringify(name)}; one of ${Object.keys(SCENARIOS).join(", ")}`);
process.stdout.write(JSON.stringify(await scenario()) + "\n");
