// An OtelExporter imports the OpenTelemetry SDK parts of what it sends (the span exporter of its
// encoding, the logs and metrics SDKs and their exporters) when it is made, in the background.
// Events recorded before they are there wait for them; a part that cannot be imported is a
// diagnostic, never an error in the app. Each case runs the built package in a fresh Node
// (test/runtimes/module-probe.mjs), where the import cannot have finished before the events come:
// they are recorded in the same turn the exporter is made.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runModuleProbe } from "../support/import-graph.js";
import { attributesOf, logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const built = existsSync(fileURLToPath(new URL("../../dist/exporters/index.js", import.meta.url)));
const canProbe = built && typeof (await import("node:module")).registerHooks === "function";

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

/** Every OpenTelemetry package of OTLP export; relaytrace's span export uses none of them. */
const OTLP_EXPORTER_PACKAGES = [
  "@opentelemetry/otlp-exporter-base",
  "@opentelemetry/otlp-transformer",
  "@opentelemetry/exporter-trace-otlp-proto",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/sdk-logs",
  "@opentelemetry/sdk-metrics",
];

const spanNames = () =>
  receiver.received
    .filter((r) => r.signal === "traces")
    .flatMap((r) => spansOf(r.body))
    .map((s) => s["name"]);

function metricNames(): string[] {
  const list = (v: unknown) => (v as Record<string, unknown>[] | undefined) ?? [];
  return receiver.received
    .filter((r) => r.signal === "metrics")
    .flatMap((r) => list(r.body["resourceMetrics"]).flatMap((rm) => list(rm["scopeMetrics"]).flatMap((sm) => list(sm["metrics"]))))
    .map((m) => String(m["name"]));
}

describe.skipIf(!canProbe)("an OtelExporter's SDK parts load when it is made", () => {
  it("events recorded before they load are all exported, also when shutdown() comes first", async () => {
    const report = await runModuleProbe("otel-shutdown", receiver.url);
    expect(report.diagnostics).toEqual([]);
    expect(spanNames().sort()).toEqual(["chat m", "invoke_agent agent"]);
    const logs = logRecordsOf(receiver.received);
    expect(logs).toHaveLength(1);
    expect(attributesOf(logs[0]!["attributes"])["nemo_relay.mark.name"]).toBe("checkpoint");
    expect(new Set(metricNames())).toEqual(new Set(["queue.depth", "gen_ai.client.operation.duration"]));
  });

  it("a log exporter that cannot be imported is counted: the app runs, traces go out, the log record is dropped", async () => {
    const report = await runModuleProbe("otel-logs", receiver.url, ["@opentelemetry/exporter-logs-otlp-proto"]);
    expect(report.diagnostics.map((d) => d.code).sort()).toEqual(["otel.load_failed", "otel.logs_dropped"]);
    const failure = report.diagnostics.find((d) => d.code === "otel.load_failed")!;
    expect(failure.message).toMatch(
      /could not load the logs signal \(.*@opentelemetry\/exporter-logs-otlp-proto\).*; npm install @opentelemetry\/sdk-logs @opentelemetry\/exporter-logs-otlp-proto to send logs \(OTLP\/HTTP protobuf\); no log record is exported/,
    );
    expect(report.diagnostics.find((d) => d.code === "otel.logs_dropped")!.count).toBe(1);
    expect(spanNames().sort()).toEqual(["chat m", "invoke_agent agent"]);
    expect(logRecordsOf(receiver.received)).toEqual([]);
  });

  it("a metric exporter that cannot be imported is counted, and traces still go out", async () => {
    const report = await runModuleProbe("otel-metrics-json", receiver.url, ["@opentelemetry/exporter-metrics-otlp-http"]);
    const codes = report.diagnostics.map((d) => d.code);
    expect(codes).toContain("otel.load_failed");
    expect(codes).toContain("otel.metrics_dropped");
    expect(report.diagnostics.find((d) => d.code === "otel.load_failed")!.message).toMatch(
      /the metrics signal.*npm install @opentelemetry\/sdk-metrics @opentelemetry\/exporter-metrics-otlp-http to send metrics \(OTLP\/HTTP JSON\)/,
    );
    expect(metricNames()).toEqual([]);
    expect(spanNames().sort()).toEqual(["chat m", "invoke_agent agent"]);
  });

  it.each(["otel-protobuf", "otel-json"])(
    "%s: spans need no package of OpenTelemetry's exporters (all of them missing, the spans arrive, nothing is counted)",
    async (scenario) => {
      const report = await runModuleProbe(scenario, receiver.url, OTLP_EXPORTER_PACKAGES);
      expect(report.diagnostics).toEqual([]);
      expect(spanNames().sort()).toEqual(["chat m", "invoke_agent agent"]);
    },
  );
});
