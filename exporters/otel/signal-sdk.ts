// The OpenTelemetry packages of the logs and metrics signals, as one object. Node, Bun and Deno
// import each when a signal is turned on (signal-sdk-import.ts); a Worker or browser bundle holds
// them only when the app imports "relaytrace/exporters/signals", which provides them here. Kept on
// a global (not in this module), so that every copy of relaytrace in a bundle finds them.
import type * as ExporterLogsHttp from "@opentelemetry/exporter-logs-otlp-http";
import type * as ExporterLogsProto from "@opentelemetry/exporter-logs-otlp-proto";
import type * as ExporterMetricsHttp from "@opentelemetry/exporter-metrics-otlp-http";
import type * as ExporterMetricsProto from "@opentelemetry/exporter-metrics-otlp-proto";
import type * as SdkLogs from "@opentelemetry/sdk-logs";
import type * as SdkMetrics from "@opentelemetry/sdk-metrics";

/** What the logs and metrics signals use of OpenTelemetry's SDK and OTLP exporters. */
export interface SignalSdk {
  sdkLogs: Pick<typeof SdkLogs, "LoggerProvider" | "BatchLogRecordProcessor" | "ConsoleLogRecordExporter">;
  sdkMetrics: Pick<typeof SdkMetrics, "MeterProvider" | "PeriodicExportingMetricReader" | "ConsoleMetricExporter">;
  logsOtlpHttp: Pick<typeof ExporterLogsHttp, "OTLPLogExporter">;
  logsOtlpProto: Pick<typeof ExporterLogsProto, "OTLPLogExporter">;
  metricsOtlpHttp: Pick<typeof ExporterMetricsHttp, "OTLPMetricExporter">;
  metricsOtlpProto: Pick<typeof ExporterMetricsProto, "OTLPMetricExporter">;
}

const KEY = Symbol.for("relaytrace.providedSignalSdk");
const holder = globalThis as unknown as Record<symbol, SignalSdk | undefined>;

/** Makes `sdk` what the logs and metrics signals use in this process or isolate. */
export function provideSignalSdk(sdk: SignalSdk): void {
  holder[KEY] = sdk;
}

/** What "relaytrace/exporters/signals" provided, if it was imported. */
export function providedSignalSdk(): SignalSdk | undefined {
  return holder[KEY];
}
