// relaytrace inside an app on OpenTelemetry JS SDK 2 with the trace SDK only (api 1.9,
// sdk-trace-base and sdk-trace-node 2.12; no sdk-node, no OTLP exporter, no logs or metrics SDK):
// the packed relaytrace is added with a plain `npm install`, and the app's programs
// (test/peers/apps/otel-trace-app.mjs and otel-sdk2-trace-app-types.ts) run it. relaytrace depends
// only on OpenTelemetry packages such an app already has (core, resources, sdk-trace at 2.x); the
// logs and metrics SDKs and their exporters are optional peers, so npm brings none of their 0.3xx
// line (which needs api 1.10) into an api 1.9 app.
//
// Not part of `npm test`: the peer-version matrix (test/interop/tools/peer-matrix.sh) installs the
// app apart, packs relaytrace and runs this file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanIdOf } from "../../src/events/uuid.js";
import {
  apiCopies,
  installRelaytraceIntoApp,
  npmWarnings,
  ownOpenTelemetryPackages,
  removeApp,
  runAppScenario,
  typeCheckInApp,
  type OtelApp,
} from "../support/otel-app.js";
import { spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

interface Diagnostic {
  code: string;
  message: string;
  count: number;
}

let app: OtelApp | undefined;
beforeAll(async () => {
  app = await installRelaytraceIntoApp();
}, 120_000);
afterAll(() => removeApp(app));
const current = (): OtelApp => {
  if (!app) throw new Error("the app was not installed");
  return app;
};

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const spansAt = (path: string) =>
  receiver.received
    .filter((r) => r.path === path)
    .flatMap((r) => spansOf(r.body).map((s) => String(s["name"])))
    .sort();

describe("relaytrace in an app on OpenTelemetry JS SDK 2 with the trace SDK only", () => {
  it("installs with a plain npm install: no warning, one @opentelemetry/api, no OpenTelemetry copy of relaytrace's own", async () => {
    expect(await npmWarnings(current())).toEqual([]);
    expect(await apiCopies(current())).toEqual(["node_modules/@opentelemetry/api"]);
    expect(await ownOpenTelemetryPackages(current())).toEqual([]);
  });

  it("joins the app's active span under its registered NodeTracerProvider, on the app's resource", async () => {
    const { request, toolUuid, activeInTool, spans } = await runAppScenario<{
      request: { traceId: string; spanId: string };
      toolUuid: string;
      activeInTool?: string;
      spans: { name: string; traceId: string; spanId: string; parentSpanId?: string; serviceName?: string }[];
    }>(current(), "otel-trace-app.mjs", "join");
    const tool = spans.find((s) => s.name === "execute_tool lookup");
    expect(tool).toMatchObject({ spanId: spanIdOf(toolUuid), traceId: request.traceId, parentSpanId: request.spanId, serviceName: "shop" });
    expect(activeInTool).toBe(tool!.spanId);
  });

  it("takes the app provider's sampler at trace roots", async () => {
    const names = await runAppScenario<Record<string, string[]>>(current(), "otel-trace-app.mjs", "sampler");
    expect(names).toEqual({ alwaysOff: [], alwaysOn: ["agent", "lookup"] });
  });

  it("sends spans through relaytrace's own OTLP pipeline, protobuf and JSON, with no OTLP exporter package in the app", async () => {
    const { diagnostics } = await runAppScenario<{ diagnostics: Diagnostic[] }>(current(), "otel-trace-app.mjs", "send", {
      RECEIVER_URL: receiver.url,
    });
    expect(diagnostics).toEqual([]);
    expect(spansAt("/v1/traces")).toEqual(["execute_tool lookup", "invoke_agent agent"]);
    expect(spansAt("/json/v1/traces")).toEqual(["execute_tool lookup", "invoke_agent agent"]);
    expect(receiver.received.find((r) => r.path === "/json/v1/traces")!.contentType).toBe("application/json");
  });

  it("logs: true without the logs SDK: otel.load_failed names the packages to npm install; the spans still go out", async () => {
    const before = spansAt("/v1/traces").length;
    const { diagnostics } = await runAppScenario<{ diagnostics: Diagnostic[] }>(current(), "otel-trace-app.mjs", "logs", {
      RECEIVER_URL: receiver.url,
    });
    const failed = diagnostics.find((d) => d.code === "otel.load_failed");
    expect(failed?.message).toContain(
      "npm install @opentelemetry/sdk-logs @opentelemetry/exporter-logs-otlp-proto to send logs (OTLP/HTTP protobuf)",
    );
    expect(diagnostics.map((d) => d.code).sort()).toEqual(["otel.load_failed", "otel.logs_dropped"]);
    expect(spansAt("/v1/traces").length).toBe(before + 2);
  });

  it("type-checks the app's TypeScript (logs and metrics options included) under tsc --strict against relaytrace's published declarations", async () => {
    expect(await typeCheckInApp(current(), "otel-sdk2-trace-app-types.ts")).toBe("");
  }, 120_000);
});
