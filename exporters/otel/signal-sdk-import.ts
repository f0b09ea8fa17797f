// "#otel-signals" on Node, Bun and Deno (and bundles for them): each OpenTelemetry part of the
// logs and metrics signals is imported when an OtelExporter turns the signal on. The specifiers
// are literal, so a bundler for these runtimes includes every one of them.
// Leaf module: it imports nothing of relaytrace's (see package.json "imports").
import type { SignalSdk } from "./signal-sdk.js";

/** The `import "..."` that puts the signals into a Worker or browser bundle; none is needed here. */
export const SIGNALS_OPT_IN: string | undefined = undefined;

export function importSdkLogs(): Promise<SignalSdk["sdkLogs"]> {
  return import("@opentelemetry/sdk-logs");
}

export function importSdkMetrics(): Promise<SignalSdk["sdkMetrics"]> {
  return import("@opentelemetry/sdk-metrics");
}

export function importLogsOtlpHttp(): Promise<SignalSdk["logsOtlpHttp"]> {
  return import("@opentelemetry/exporter-logs-otlp-http");
}

export function importLogsOtlpProto(): Promise<SignalSdk["logsOtlpProto"]> {
  return import("@opentelemetry/exporter-logs-otlp-proto");
}

export function importMetricsOtlpHttp(): Promise<SignalSdk["metricsOtlpHttp"]> {
  return import("@opentelemetry/exporter-metrics-otlp-http");
}

export function importMetricsOtlpProto(): Promise<SignalSdk["metricsOtlpProto"]> {
  return import("@opentelemetry/exporter-metrics-otlp-proto");
}
