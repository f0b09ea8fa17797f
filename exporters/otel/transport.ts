import { OTLPLogExporter as JsonLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { ConsoleLogRecordExporter, type LogRecordExporter } from "@opentelemetry/sdk-logs";
import { ConsoleMetricExporter, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { ConsoleSpanExporter, type SpanExporter } from "@opentelemetry/sdk-trace";
import type { ExporterChoice, OtlpProtocol, Signal } from "./env.js";
import { ProtobufSpanExporter } from "./protobuf-span-exporter.js";

/** Where one signal goes over OTLP/HTTP. Unset fields fall to the exporter's own `OTEL_EXPORTER_OTLP_*` variables. */
export interface OtlpTarget {
  url?: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
}

function config(target: OtlpTarget): OtlpTarget {
  const out: OtlpTarget = {};
  if (target.url !== undefined) out.url = target.url;
  if (target.headers !== undefined) out.headers = target.headers;
  if (target.timeoutMillis !== undefined) out.timeoutMillis = target.timeoutMillis;
  return out;
}

/**
 * The span exporter an `OtelExporter` builds for itself (console, or OTLP/HTTP in the chosen
 * encoding). The `OtelExporter` owns it: its `shutdown()`, which `runtime.shutdown()` calls on a
 * runtime it is registered with, flushes the queue and then shuts this exporter down.
 */
export function spanExporterFor(choice: Exclude<ExporterChoice, "none">, protocol: OtlpProtocol, target: OtlpTarget): SpanExporter {
  if (choice === "console") return new ConsoleSpanExporter();
  return protocol === "http/json" ? new JsonTraceExporter(config(target)) : new ProtobufSpanExporter(config(target));
}

export function logExporterFor(choice: Exclude<ExporterChoice, "none">, protocol: OtlpProtocol, target: OtlpTarget): LogRecordExporter {
  if (choice === "console") return new ConsoleLogRecordExporter();
  return protocol === "http/json" ? new JsonLogExporter(config(target)) : new ProtoLogExporter(config(target));
}

export function metricExporterFor(choice: Exclude<ExporterChoice, "none">, protocol: OtlpProtocol, target: OtlpTarget): PushMetricExporter {
  if (choice === "console") return new ConsoleMetricExporter();
  return protocol === "http/json" ? new JsonMetricExporter(config(target)) : new ProtoMetricExporter(config(target));
}

/**
 * The URL of another signal next to a traces URL given in code: `…/v1/traces` becomes `…/v1/logs`
 * (or `/v1/metrics`); any other path gets no sibling (the signal's own variables then apply).
 */
export function siblingUrl(tracesUrl: string | undefined, signal: Signal): string | undefined {
  if (tracesUrl === undefined) return undefined;
  const url = new URL(tracesUrl);
  if (!url.pathname.endsWith("/v1/traces")) return undefined;
  url.pathname = `${url.pathname.slice(0, -"/v1/traces".length)}/v1/${signal}`;
  return url.toString();
}
