import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import type { TraceSampler } from "./sampling.js";
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { importSdkLogs, importSdkMetrics } from "#otel-signals";
import { appPipelineOf } from "./app-provider.js";
import { CountingSpanExporter } from "./counting-span-exporter.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import {
  batchSettingsFromEnv,
  BLRP_DEFAULTS,
  BSP_DEFAULTS,
  exporterFromEnv,
  logBatchSettingsFromEnv,
  METRIC_READER_DEFAULTS,
  metricReaderSettingsFromEnv,
  protocolFromEnv,
  samplerFromEnv,
  logRecordLimitsFromEnv,
  spanLimitsFromEnv,
  timeoutFromEnv,
  type EnvProblem,
  type ExporterChoice,
  type GenAiConventions,
  type OtlpProtocol,
} from "./env.js";
import type { InstrumentationScope } from "./finished-span.js";
import { DeferredSignal, LoadingSpanExporter } from "./loading.js";
import type { MarkLogs } from "./mark-logs.js";
import type { OtelExporterOptions } from "./options.js";
import type { SignalMetrics } from "./signal-metrics.js";
import { SpanBatcher } from "./span-batcher.js";
import type { SpanLimitSettings } from "./span-limits.js";
import { logExporterFor, metricExporterFor, siblingUrl, spanExporterFor } from "./transport.js";

const OWNER = "OtelExporter";
const LOGS_CODES = { dropped: "otel.logs_dropped", what: "log record" };
const METRICS_CODES = { dropped: "otel.metrics_dropped", what: "measurement" };

/** Where finished spans go, and the settings every span of this exporter shares. */
export interface TracePipeline {
  resource: Resource;
  /** The app's span processor (`tracerProvider` given); spans then take the app's pipeline. */
  processor: SpanProcessor | undefined;
  /** relaytrace's own batch processor; undefined with an app provider or when traces are off (`OTEL_TRACES_EXPORTER=none`). */
  batcher: SpanBatcher | undefined;
  sampler: TraceSampler;
  limits: SpanLimitSettings;
  timeoutMillis: number;
  /** Resolves once the span exporter relaytrace imports for itself is there (or failed to load). */
  ready: Promise<void>;
}

/** The logs signal, its SDK imported when the exporter is made. */
export type LogsSignal = DeferredSignal<MarkLogs>;
/** The metrics signal, its SDK imported when the exporter is made. */
export type MetricsSignal = DeferredSignal<SignalMetrics>;

export interface Endpoints {
  endpoint: string | undefined;
  logsEndpoint: string | undefined;
  metricsEndpoint: string | undefined;
}

function reportProblems(problems: EnvProblem[], counter: DiagnosticCounter): void {
  for (const p of problems) counter.record("otel.env_invalid", p.message);
}

/** The resource of relaytrace's own pipeline: SDK defaults < `OTEL_RESOURCE_ATTRIBUTES` / `OTEL_SERVICE_NAME` < options. */
function ownResource(options: OtelExporterOptions): Resource {
  const fromCode: Record<string, string | number | boolean> = {};
  if (options.serviceName !== undefined) fromCode["service.name"] = options.serviceName;
  Object.assign(fromCode, options.resourceAttributes);
  return defaultResource()
    .merge(resourceFromAttributes({ "service.name": "unknown_service" }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes(fromCode));
}

export function tracePipeline(
  options: OtelExporterOptions,
  endpoint: string | undefined,
  scope: InstrumentationScope,
  counter: DiagnosticCounter,
): TracePipeline {
  const problems: EnvProblem[] = [];
  try {
    if (options.tracerProvider !== undefined) {
      const app = appPipelineOf(options.tracerProvider, { name: scope.name, version: scope.version ?? "" });
      return {
        resource: app.resource,
        processor: app.processor,
        batcher: undefined,
        sampler: options.sampler ?? app.sampler ?? samplerFromEnv(problems),
        limits: app.limits,
        timeoutMillis: options.timeoutMillis ?? 3000,
        ready: Promise.resolve(),
      };
    }
    const batch = batchSettingsFromEnv(problems);
    // relaytrace bounds an export at 3000 ms unless told otherwise (shorter than the specification's
    // 30000, so that a flush or shutdown at exit stays short); OTEL_BSP_EXPORT_TIMEOUT says otherwise.
    const timeoutMillis = options.timeoutMillis ?? batch.exportTimeoutMillis ?? timeoutFromEnv("traces", problems) ?? 3000;
    const maxQueueSize = options.maxQueueSize ?? batch.maxQueueSize ?? BSP_DEFAULTS.maxQueueSize;
    // Code that names a destination chooses OTLP (or its own exporter); otherwise the variable decides.
    const choice = options.spanExporter !== undefined || endpoint !== undefined ? "otlp" : exporterFromEnv("traces", problems);
    const common = {
      resource: ownResource(options),
      processor: undefined,
      sampler: options.sampler ?? samplerFromEnv(problems),
      limits: spanLimitsFromEnv(problems),
      timeoutMillis,
    };
    if (choice === "none") return { ...common, batcher: undefined, ready: Promise.resolve() };
    let exporter = options.spanExporter;
    let ready = Promise.resolve();
    if (exporter === undefined) {
      const protocol: OtlpProtocol = options.protocol ?? protocolFromEnv(OWNER, "traces");
      const loading = new LoadingSpanExporter(
        spanExporterFor(choice, protocol, { url: endpoint, headers: options.headers, timeoutMillis }),
        counter,
      );
      exporter = loading;
      ready = loading.ready;
    }
    const sink = new CountingSpanExporter(exporter, counter);
    const batcher = new SpanBatcher(
      sink,
      {
        maxQueueSize,
        maxQueueBytes: options.maxQueueBytes,
        maxExportBatchSize: Math.min(
          options.maxExportBatchSize ?? batch.maxExportBatchSize ?? BSP_DEFAULTS.maxExportBatchSize,
          maxQueueSize,
        ),
        scheduledDelayMillis: options.scheduledDelayMillis ?? batch.scheduledDelayMillis ?? BSP_DEFAULTS.scheduledDelayMillis,
        exportTimeoutMillis: timeoutMillis,
      },
      counter,
    );
    return { ...common, batcher, ready };
  } finally {
    reportProblems(problems, counter);
  }
}

const unique = (name: string, index: number, all: string[]): boolean => all.indexOf(name) === index;

/** How a signal is sent, for a diagnostic: "console", "OTLP/HTTP protobuf" or "OTLP/HTTP JSON". */
function encodingOf(choice: ExporterChoice, protocol: OtlpProtocol): string {
  if (choice === "console") return "console";
  return protocol === "http/json" ? "OTLP/HTTP JSON" : "OTLP/HTTP protobuf";
}

function signalOptions<T extends object>(value: boolean | T | undefined): T | undefined {
  if (value === undefined || value === false) return undefined;
  return value === true ? ({} as T) : value;
}

/** The logs signal, when `logs` is on and `OTEL_LOGS_EXPORTER` is not `none`; batched as `OTEL_BLRP_*` say. */
export function logsPipeline(
  options: OtelExporterOptions,
  endpoints: Endpoints,
  resource: Resource,
  scope: InstrumentationScope,
  ns: string,
  counter: DiagnosticCounter,
  captureContent: boolean,
): LogsSignal | undefined {
  const logs = signalOptions(options.logs);
  if (!logs) return undefined;
  const problems: EnvProblem[] = [];
  try {
    const choice = logs.endpoint !== undefined ? "otlp" : exporterFromEnv("logs", problems);
    if (choice === "none") return undefined;
    const protocol = options.protocol ?? protocolFromEnv(OWNER, "logs");
    const url = endpoints.logsEndpoint ?? siblingUrl(endpoints.endpoint, "logs");
    const exporter = logExporterFor(choice, protocol, {
      url,
      headers: logs.headers ?? options.headers,
      timeoutMillis: options.timeoutMillis ?? timeoutFromEnv("logs", problems),
    });
    const env = logBatchSettingsFromEnv(problems);
    const maxQueueSize = env.maxQueueSize ?? BLRP_DEFAULTS.maxQueueSize;
    const batch = {
      maxQueueSize,
      maxExportBatchSize: Math.min(env.maxExportBatchSize ?? BLRP_DEFAULTS.maxExportBatchSize, maxQueueSize),
      scheduledDelayMillis: env.scheduledDelayMillis ?? BLRP_DEFAULTS.scheduledDelayMillis,
      exportTimeoutMillis: options.timeoutMillis ?? env.exportTimeoutMillis ?? BLRP_DEFAULTS.exportTimeoutMillis,
    };
    const limits = logRecordLimitsFromEnv(problems);
    const load = async (): Promise<MarkLogs> => {
      const [{ MarkLogs }, sdk, inner] = await Promise.all([import("./mark-logs.js"), importSdkLogs(), exporter.load()]);
      return new MarkLogs(sdk, inner, resource, scope, ns, counter, captureContent, batch, limits);
    };
    return new DeferredSignal(
      {
        what: `the logs signal`,
        from: `@opentelemetry/sdk-logs, ${exporter.from}`,
        load,
        install: { packages: ["@opentelemetry/sdk-logs", exporter.from].filter(unique), purpose: `logs (${encodingOf(choice, protocol)})` },
      },
      counter,
      LOGS_CODES,
      maxQueueSize,
    );
  } finally {
    reportProblems(problems, counter);
  }
}

/** The metrics signal, when `metrics` is on and `OTEL_METRICS_EXPORTER` is not `none`; read as `OTEL_METRIC_EXPORT_*` say. */
export function metricsPipeline(
  options: OtelExporterOptions,
  endpoints: Endpoints,
  resource: Resource,
  scope: InstrumentationScope,
  counter: DiagnosticCounter,
  conventions: GenAiConventions = "1.41",
): MetricsSignal | undefined {
  const metrics = signalOptions(options.metrics);
  if (!metrics) return undefined;
  const problems: EnvProblem[] = [];
  try {
    const choice = metrics.endpoint !== undefined ? "otlp" : exporterFromEnv("metrics", problems);
    const env = metricReaderSettingsFromEnv(problems);
    if (choice === "none") return undefined;
    const interval = Math.max(1, metrics.exportIntervalMillis ?? env.exportIntervalMillis ?? METRIC_READER_DEFAULTS.exportIntervalMillis);
    // The reader refuses a timeout longer than its interval: the interval bounds it.
    const timeout = Math.min(options.timeoutMillis ?? env.exportTimeoutMillis ?? METRIC_READER_DEFAULTS.exportTimeoutMillis, interval);
    const protocol = options.protocol ?? protocolFromEnv(OWNER, "metrics");
    const url = endpoints.metricsEndpoint ?? siblingUrl(endpoints.endpoint, "metrics");
    const exporter = metricExporterFor(choice, protocol, {
      url,
      headers: metrics.headers ?? options.headers,
      timeoutMillis: options.timeoutMillis ?? timeoutFromEnv("metrics", problems),
    });
    const reader = { exportIntervalMillis: interval, exportTimeoutMillis: Math.max(1, timeout) };
    const load = async (): Promise<SignalMetrics> => {
      const [{ SignalMetrics }, sdk, inner] = await Promise.all([import("./signal-metrics.js"), importSdkMetrics(), exporter.load()]);
      return new SignalMetrics(sdk, inner, resource, scope, reader, counter, conventions);
    };
    return new DeferredSignal(
      {
        what: `the metrics signal`,
        from: `@opentelemetry/sdk-metrics, ${exporter.from}`,
        load,
        install: {
          packages: ["@opentelemetry/sdk-metrics", exporter.from].filter(unique),
          purpose: `metrics (${encodingOf(choice, protocol)})`,
        },
      },
      counter,
      METRICS_CODES,
    );
  } finally {
    reportProblems(problems, counter);
  }
}
