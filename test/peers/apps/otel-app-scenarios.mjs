// What an app on OpenTelemetry JS does with relaytrace, as plain Node runs it inside a fresh install
// of that app (test/support/otel-app.ts copies this folder there). Each scenario prints one JSON line
// for the test to check. `sdk` holds the few things the SDK lines spell differently (see
// otel-sdk2-app.mjs and otel-sdk3-app.mjs); everything else is the same code on both lines.
import { trace } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { createRuntime } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
import { collectingExporter } from "./collecting-exporter.mjs";

function described(span) {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    serviceName: span.resource.attributes["service.name"],
  };
}

/** A started NodeSDK (the app's provider and resource); a relaytrace tool runs inside the app's request span. */
async function join(sdk) {
  const appSpans = collectingExporter();
  const nodeSdk = new NodeSDK({ serviceName: "shop", spanProcessors: [sdk.simpleProcessor(appSpans)] });
  nodeSdk.start();
  const rt = createRuntime();
  new OtelExporter({ projection: "gen_ai", tracerProvider: trace.getTracerProvider() }).register(rt);
  const tracer = trace.getTracer("shop");
  let toolUuid = "";
  let activeInTool;
  const request = await tracer.startActiveSpan("request", async (span) => {
    await rt.executeTool("lookup", { city: "Paris" }, (_args, ctx) => {
      toolUuid = ctx.toolUuid;
      activeInTool = trace.getActiveSpan()?.spanContext().spanId;
      tracer.startSpan("db.query").end();
      return { result: { temperature: 21 } };
    });
    span.end();
    return span.spanContext();
  });
  await rt.shutdown();
  tracer.startSpan("after relaytrace shut down").end(); // relaytrace's shutdown leaves the app's provider running
  await nodeSdk.shutdown();
  return { request: { traceId: request.traceId, spanId: request.spanId }, toolUuid, activeInTool, spans: appSpans.spans.map(described) };
}

/** The same agent run under an app provider that samples nothing, and one that samples everything. */
async function sampler(sdk) {
  const names = {};
  for (const [label, Sampler] of [
    ["alwaysOff", sdk.AlwaysOffSampler],
    ["alwaysOn", sdk.AlwaysOnSampler],
  ]) {
    const appSpans = collectingExporter();
    const provider = sdk.tracerProvider(new Sampler(), appSpans);
    const rt = createRuntime();
    new OtelExporter({ projection: "full", tracerProvider: provider }).register(rt);
    await rt.withScope("agent", () => rt.executeTool("lookup", {}, () => ({ result: "ok" })), { category: "agent" });
    await rt.shutdown();
    await provider.shutdown();
    names[label] = appSpans.spans.map((s) => s.name).sort();
  }
  return names;
}

/**
 * relaytrace's own OTLP pipeline (spans, mark log records, metrics; built on the app's SDK packages)
 * to RECEIVER_URL, and the app's OTLP exporter handed over as `spanExporter`, to RECEIVER_URL/app.
 */
async function send() {
  const url = process.env["RECEIVER_URL"];
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  const rt = createRuntime();
  const own = new OtelExporter({ projection: "full", endpoint: `${url}/v1/traces`, logs: true, metrics: true, serviceName: "shop" });
  const viaApp = new OtelExporter({ projection: "openinference", spanExporter: new OTLPTraceExporter({ url: `${url}/app/v1/traces` }) });
  own.register(rt);
  viaApp.register(rt);
  let toolUuid = "";
  await rt.withScope(
    "agent",
    async () => {
      rt.mark("cache.miss", { data: { key: "k1" } });
      rt.metric("work", [{ name: "jobs.done", kind: "counter", valueType: "u64", value: 3 }]);
      await rt.executeTool("lookup", { city: "Paris" }, (_args, ctx) => {
        toolUuid = ctx.toolUuid;
        return { result: { temperature: 21 } };
      });
    },
    { category: "agent" },
  );
  await rt.shutdown();
  return { toolUuid, diagnostics: [...own.diagnostics(), ...viaApp.diagnostics()] };
}

const SCENARIOS = { join, sampler, send };

/** Runs the scenario named on the command line and prints its result. */
export async function runScenario(sdk) {
  const name = process.argv[2];
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${JSON.stringify(name)}; one of ${Object.keys(SCENARIOS).join(", ")}`);
  process.stdout.write(JSON.stringify(await scenario(sdk)) + "\n");
}
