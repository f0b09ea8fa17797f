import type { LogRecordExporter } from "@opentelemetry/sdk-logs";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import {
  importLogsOtlpHttp,
  importLogsOtlpProto,
  importMetricsOtlpHttp,
  importMetricsOtlpProto,
  importSdkLogs,
  importSdkMetrics,
} from "#otel-signals";
import type { ExporterChoice, OtlpProtocol, Signal } from "./env.js";

// Each exporter class is imported when an OtelExporter chooses it, not when the package is: an app
// sending protobuf traces never loads the JSON exporters, the logs or the metrics SDK. The
// specifiers are literal, so bundlers still find and include every one of them; the logs and
// metrics parts come through "#otel-signals", which Worker and browser bundles hold only on request.

/** Where one signal goes over OTLP/HTTP. Unset fields fall to the exporter's own `OTEL_EXPORTER_OTLP_*` variables. */
export interface OtlpTarget {
  url?: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
}

/** An exporter still to be imported; `what` and `from` (its package) name it in a diagnostic if the import fails. */
export interface ExporterLoad<T> {
  what: string;
  from: string;
  load: () => Promise<T>;
  /** The optional peer packages it needs: a diagnostic of a missing one says to install them, for `purpose`. */
  install?: { packages: string[]; purpose: string };
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
export function spanExporterFor(
  choice: Exclude<ExporterChoice, "none">,
  protocol: OtlpProtocol,
  target: OtlpTarget,
): ExporterLoad<SpanExporter> {
  if (choice === "console") {
    return {
      what: "the console span exporter",
      from: "@opentelemetry/sdk-trace",
      load: async () => new (await import("@opentelemetry/sdk-trace")).ConsoleSpanExporter(),
    };
  }
  // relaytrace's own OTLP/HTTP span export (no package of OpenTelemetry's exporters), over `fetch`
  // in bundles for browsers and Workers (package.json "browser").
  if (protocol === "http/json") {
    return {
      what: "the OTLP/HTTP JSON span exporter",
      from: "relaytrace",
      load: async () => (await import("./json-span-exporter.js")).jsonSpanExporter(config(target)),
    };
  }
  return {
    what: "the OTLP/HTTP protobuf span exporter",
    from: "relaytrace",
    load: async () => (await import("./protobuf-span-exporter.js")).protobufSpanExporter(config(target)),
  };
}

export function logExporterFor(
  choice: Exclude<ExporterChoice, "none">,
  protocol: OtlpProtocol,
  target: OtlpTarget,
): ExporterLoad<LogRecordExporter> {
  if (choice === "console") {
    return {
      what: "the console log exporter",
      from: "@opentelemetry/sdk-logs",
      load: async () => new (await importSdkLogs()).ConsoleLogRecordExporter(),
    };
  }
  if (protocol === "http/json") {
    return {
      what: "the OTLP/HTTP JSON log exporter",
      from: "@opentelemetry/exporter-logs-otlp-http",
      load: async () => new (await importLogsOtlpHttp()).OTLPLogExporter(config(target)),
    };
  }
  return {
    what: "the OTLP/HTTP protobuf log exporter",
    from: "@opentelemetry/exporter-logs-otlp-proto",
    load: async () => new (await importLogsOtlpProto()).OTLPLogExporter(config(target)),
  };
}

export function metricExporterFor(
  choice: Exclude<ExporterChoice, "none">,
  protocol: OtlpProtocol,
  target: OtlpTarget,
): ExporterLoad<PushMetricExporter> {
  if (choice === "console") {
    return {
      what: "the console metric exporter",
      from: "@opentelemetry/sdk-metrics",
      load: async () => new (await importSdkMetrics()).ConsoleMetricExporter(),
    };
  }
  if (protocol === "http/json") {
    return {
      what: "the OTLP/HTTP JSON metric exporter",
      from: "@opentelemetry/exporter-metrics-otlp-http",
      load: async () => new (await importMetricsOtlpHttp()).OTLPMetricExporter(config(target)),
    };
  }
  return {
    what: "the OTLP/HTTP protobuf metric exporter",
    from: "@opentelemetry/exporter-metrics-otlp-proto",
    load: async () => new (await importMetricsOtlpProto()).OTLPMetricExporter(config(target)),
  };
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
