// relaytrace inside an app on OpenTelemetry JS SDK 3 (`@opentelemetry/sdk-node` 0.301 and later,
// `@opentelemetry/sdk-trace` 3): the app's provider, its sampler and an SDK 3 OTLP exporter.
//
// SDK 3 requires @opentelemetry/api 1.10 while relaytrace's own OpenTelemetry packages (the SDK 2
// line) admit api below 1.10, so npm gives relaytrace an api copy of its own beside the app's. An
// older api copy reads what a newer one registered (context manager, provider, propagator): these
// tests hold that, with the app's side loaded exactly as the app loads it (from sdk-node's own tree).
//
// Not part of `npm test`: SDK 3 cannot be installed beside this repo's SDK 2 devDependencies (the
// api peer ranges do not overlap) and needs Node >= 22.15. The peer-version matrix
// (test/interop/tools/peer-matrix.sh) installs it on its own and runs this file under Node 24.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { spanIdOf } from "../../src/events/uuid.js";
import { attributesOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";
import { typeCheck } from "../support/type-check.js";

interface AppSpanContext {
  traceId: string;
  spanId: string;
}
interface AppSpan {
  name: string;
  spanContext(): AppSpanContext;
  parentSpanContext?: AppSpanContext;
  end(): void;
}
interface AppTracer {
  startSpan(name: string): AppSpan;
  startActiveSpan<T>(name: string, fn: (span: AppSpan) => T): T;
}
interface AppApi {
  trace: { getTracerProvider(): { getTracer(name: string): AppTracer }; getActiveSpan(): AppSpan | undefined };
}
interface CollectingExporter {
  spans: AppSpan[];
  export(spans: AppSpan[], done: (result: { code: number }) => void): void;
  shutdown(): Promise<void>;
}

// The app's packages, resolved from sdk-node's install the way the app's own imports resolve them.
const fromTest = createRequire(import.meta.url);
const fromSdk = createRequire(fromTest.resolve("otel-sdk-node3"));
const { NodeSDK } = fromSdk("@opentelemetry/sdk-node") as { NodeSDK: new (config: object) => { start(): void; shutdown(): Promise<void> } };
const sdkTrace = fromSdk("@opentelemetry/sdk-trace") as {
  TracerProvider: new (config: object) => { getTracer(name: string): AppTracer; shutdown(): Promise<void> };
  SimpleSpanProcessor: new (options: { exporter: CollectingExporter }) => object;
  AlwaysOffSampler: new () => object;
};
const { OTLPTraceExporter } = fromSdk("@opentelemetry/exporter-trace-otlp-proto") as {
  OTLPTraceExporter: new (config: { url: string }) => object;
};
const appApi = fromSdk("@opentelemetry/api") as AppApi;

/** The version of the @opentelemetry/api copy `from` resolves (its package.json is not in the package's exports). */
function apiVersion(from: NodeJS.Require): number[] {
  let dir = dirname(from.resolve("@opentelemetry/api"));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version: string };
      if (name === "@opentelemetry/api") return version.split(".").map(Number);
    }
    if (dirname(dir) === dir) throw new Error("no @opentelemetry/api package.json above its entry point");
    dir = dirname(dir);
  }
}

function collectingExporter(): CollectingExporter {
  return {
    spans: [],
    export(spans, done) {
      this.spans.push(...spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe("an app on OpenTelemetry JS SDK 3", () => {
  it("runs with two api copies: the app's 1.10 or later, and relaytrace's own older one", () => {
    const [appMajor, appMinor] = apiVersion(fromSdk);
    const [ownMajor, ownMinor] = apiVersion(fromTest);
    expect([appMajor, ownMajor]).toEqual([1, 1]);
    expect(appMinor).toBeGreaterThanOrEqual(10);
    expect(ownMinor).toBeLessThan(appMinor!);
  });

  it("joins a started NodeSDK: spans reach its processors in the app's trace, and the tool span is active inside the tool", async () => {
    const appSpans = collectingExporter();
    const sdk = new NodeSDK({ spanProcessors: [new sdkTrace.SimpleSpanProcessor({ exporter: appSpans })] });
    sdk.start();
    const rt = createRuntime();
    new OtelExporter({ projection: "gen_ai", tracerProvider: appApi.trace.getTracerProvider() as never }).register(rt);
    const tracer = appApi.trace.getTracerProvider().getTracer("app");
    let toolUuid = "";
    let activeInTool: string | undefined;
    const requestSpan = await tracer.startActiveSpan("request", async (span) => {
      await rt.executeTool("lookup", { city: "Paris" }, (_args, ctx) => {
        toolUuid = ctx.toolUuid;
        activeInTool = appApi.trace.getActiveSpan()?.spanContext().spanId;
        tracer.startSpan("db.query").end();
        return { result: { temperature: 21 } };
      });
      span.end();
      return span.spanContext();
    });
    await rt.shutdown();
    tracer.startSpan("after relaytrace shut down").end(); // relaytrace's shutdown left the app's provider running
    await sdk.shutdown();

    const byName = new Map(appSpans.spans.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual(["after relaytrace shut down", "db.query", "execute_tool lookup", "request"]);
    const tool = byName.get("execute_tool lookup")!;
    expect(tool.spanContext().spanId).toBe(spanIdOf(toolUuid));
    expect(tool.spanContext().traceId).toBe(requestSpan.traceId);
    expect(tool.parentSpanContext?.spanId).toBe(requestSpan.spanId);
    expect(activeInTool).toBe(tool.spanContext().spanId);
    expect(byName.get("db.query")!.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
  });

  it("honours an SDK 3 provider's sampler at trace roots", async () => {
    const appSpans = collectingExporter();
    const provider = new sdkTrace.TracerProvider({
      sampler: new sdkTrace.AlwaysOffSampler(),
      spanProcessors: [new sdkTrace.SimpleSpanProcessor({ exporter: appSpans })],
    });
    const rt = createRuntime();
    new OtelExporter({ projection: "full", tracerProvider: provider as never }).register(rt);
    await rt.withScope("agent", () => rt.executeTool("lookup", {}, () => ({ result: "ok" })), { category: "agent" });
    await rt.shutdown();
    await provider.shutdown();
    expect(appSpans.spans).toEqual([]);
  });

  it("sends through an SDK 3 OTLP exporter passed as spanExporter", async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const rt = createRuntime();
    const spanExporter = new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` });
    new OtelExporter({ projection: "openinference", spanExporter: spanExporter as never }).register(rt);
    let toolUuid = "";
    await rt.executeTool("lookup", { city: "Paris" }, (_args, ctx) => {
      toolUuid = ctx.toolUuid;
      return { result: { temperature: 21 } };
    });
    await rt.shutdown(); // shuts the exporter down: everything is sent

    const spans = receiver.received.filter((r) => r.signal === "traces").flatMap((r) => spansOf(r.body));
    expect(spans).toHaveLength(1);
    expect(receiver.received[0]!.contentType).toContain("application/x-protobuf");
    expect(spans[0]!["name"]).toBe("lookup");
    expect(spans[0]!["spanId"]).toBe(spanIdOf(toolUuid));
    const attributes = attributesOf(spans[0]!["attributes"]);
    expect(attributes["openinference.span.kind"]).toBe("TOOL");
    expect(JSON.parse(String(attributes["input.value"]))).toEqual({ city: "Paris" });
    expect(JSON.parse(String(attributes["output.value"]))).toEqual({ temperature: 21 });
  });

  it("types: the app's SDK 3 provider, samplers and span exporter fit OtelExporter's options", async () => {
    // The app's declarations, next to the entry points its own require() resolves.
    const declarations = (name: string) => fromSdk.resolve(name).replace(/\.cjs$/, ".d.cts");
    const out = await typeCheck(["test/peers/otel-sdk3-options.check.ts"], {
      "app-otel-api": [declarations("@opentelemetry/api")],
      "app-otel-sdk-trace": [declarations("@opentelemetry/sdk-trace")],
    });
    expect(out).toBe("");
  }, 120_000);
});
