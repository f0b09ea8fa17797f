// relaytrace/exporters/signals — `import "relaytrace/exporters/signals"` puts OpenTelemetry's logs
// and metrics SDKs and their OTLP exporters into a Worker or browser bundle, where they are left
// out unless asked for; an OtelExporter's `logs` and `metrics` options then work there. On Node,
// Bun and Deno they are imported when a signal is turned on, without this (importing it there
// only loads them when the app starts).
import * as logsOtlpHttp from "@opentelemetry/exporter-logs-otlp-http";
import * as logsOtlpProto from "@opentelemetry/exporter-logs-otlp-proto";
import * as metricsOtlpHttp from "@opentelemetry/exporter-metrics-otlp-http";
import * as metricsOtlpProto from "@opentelemetry/exporter-metrics-otlp-proto";
import * as sdkLogs from "@opentelemetry/sdk-logs";
import * as sdkMetrics from "@opentelemetry/sdk-metrics";
import { provideSignalSdk } from "./otel/signal-sdk.js";

provideSignalSdk({ sdkLogs, sdkMetrics, logsOtlpHttp, logsOtlpProto, metricsOtlpHttp, metricsOtlpProto });

export {};
