import type { TracerProvider } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import type { TraceSampler } from "./sampling.js";
import { checkProtocol, type GenAiConventions, type OtlpProtocol } from "./env.js";
import type { AttributeMapping } from "./attribute-controls.js";
import type { MarkProjectionSetting } from "./marks.js";
import type { ProjectionName } from "./projection.js";
import { declareOptions, is, type OptionsDeclaration } from "../../src/events/option-spec.js";
import { requireHttpUrl } from "../http-url.js";

/** Options of `OtelExporter`; unknown keys and wrong values throw a `TypeError` at construction. */
export interface OtelExporterOptions {
  /** Which attribute vocabulary the spans use: `full`, `openinference` or `gen_ai`. Required. */
  projection: ProjectionName;
  /**
   * OTLP/HTTP endpoint: a full traces URL (e.g. `http://localhost:4318/v1/traces`); a bare
   * collector URL (empty path or `/`, e.g. `http://localhost:4318`) gets `/v1/traces` appended.
   * Must be an absolute http(s) URL. When unset, the OpenTelemetry exporter's standard
   * `OTEL_EXPORTER_OTLP_*` environment variables apply (default `http://localhost:4318/v1/traces`).
   * Ignored when `spanExporter` is set.
   */
  endpoint?: string;
  /** Extra HTTP headers on every OTLP request (e.g. an API key). Ignored when `spanExporter` is set. */
  headers?: Record<string, string>;
  /** Resource `service.name`; default `OTEL_SERVICE_NAME`, else `unknown_service`. */
  serviceName?: string;
  /** Private attribute namespace of `full` and `openinference` (default `nemo_relay`); `gen_ai` writes no private attributes. */
  namespace?: string;
  /**
   * How marks are rendered: `event` puts a mark on its parent's span as a span event (a mark
   * with no open parent span becomes its own `mark:{name}` span); `tool` renders every mark
   * not excluded by `markExcludeNames` as its own span; `inherit` (default) behaves like `event`.
   * `gen_ai` renders no marks.
   */
  markProjection?: MarkProjectionSetting;
  /** Mark names (or `metadata.hook_event_name` values) that `tool` mode keeps as span events; default `["llm.chunk"]`. */
  markExcludeNames?: string[];
  /**
   * Where spans go instead of OTLP/HTTP (e.g. an `InMemorySpanExporter` in tests). The exporter
   * owns it from then on: `shutdown()` (and so `runtime.shutdown()` on a runtime it is registered
   * with) flushes and then shuts it down, so it accepts no spans afterwards.
   */
  spanExporter?: SpanExporter;
  /**
   * Bound on each export request, on `forceFlush()` and on `shutdown()`; default
   * `OTEL_BSP_EXPORT_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` / `OTEL_EXPORTER_OTLP_TIMEOUT`, else 3000 ms.
   * Also bounds the log and metric exports (else `OTEL_BLRP_EXPORT_TIMEOUT` / `OTEL_METRIC_EXPORT_TIMEOUT`, 30000 ms).
   */
  timeoutMillis?: number;
  /**
   * Finished spans waiting for export (batches in flight not included); past it spans are dropped
   * and counted. Default `OTEL_BSP_MAX_QUEUE_SIZE`, else 2048.
   */
  maxQueueSize?: number;
  /**
   * Bytes the waiting spans may take (their estimated encoded size: names, attribute keys and
   * values); past it spans are dropped and counted like a full queue. Default 64 MiB.
   */
  maxQueueBytes?: number;
  /** Spans per export request; default `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, else 512 (never more than `maxQueueSize`). */
  maxExportBatchSize?: number;
  /** How long finished spans wait before a batch is sent; default `OTEL_BSP_SCHEDULE_DELAY`, else 5000 ms. */
  scheduledDelayMillis?: number;
  /** Extra resource attributes; they override `service.name` when they set it. */
  resourceAttributes?: Record<string, string | number | boolean>;
  /** Instrumentation scope name on every span; default `relaytrace`. */
  instrumentationScope?: string;
  /**
   * `full` and `openinference` only (ignored by `gen_ai`): after projection, copy the last value
   * of attribute `key` to `alias` unless `alias` is already set; also on mark events and mark spans.
   */
  attributeMappings?: AttributeMapping[];
  /**
   * All projections: copy scope metadata keys starting with one of these prefixes to top-level
   * span attributes (scalars or homogeneous scalar arrays only; reserved namespaces and
   * projection-set keys are never touched; the end event's value wins over the start's).
   */
  promoteMetadataPrefixes?: string[];
  /**
   * OTLP/HTTP encoding: `http/protobuf` (the specification's default) or `http/json`. Default
   * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else protobuf; `grpc`
   * is refused at construction. Logs and metrics use the same encoding unless their own variable says otherwise.
   */
  protocol?: OtlpProtocol;
  /**
   * The app's OpenTelemetry JS SDK 2.x or 3.x TracerProvider (a NodeSDK's global one works): spans then carry
   * its resource, go to its span processors and trace roots honour its sampler. relaytrace never
   * shuts it down (`shutdown()` only flushes it). `endpoint`, `headers`, `spanExporter`, the batch
   * options, `serviceName` and `resourceAttributes` do not apply then: the provider's pipeline decides.
   */
  tracerProvider?: TracerProvider;
  /**
   * Decides which traces are kept; asked once per trace (at its root), every other span follows
   * that decision. Default: the `tracerProvider`'s sampler, else `OTEL_TRACES_SAMPLER` /
   * `OTEL_TRACES_SAMPLER_ARG`, else parent-based always-on.
   */
  sampler?: TraceSampler;
  /**
   * Marks (not metric marks) as OTLP log records at `/v1/logs`, and the `gen_ai` projection's
   * `gen_ai.client.operation.exception` events of failed model calls; `true` sends them next to the
   * traces endpoint (`…/v1/traces` → `…/v1/logs`, else the `OTEL_EXPORTER_OTLP_LOGS_*` variables).
   * `OTEL_LOGS_EXPORTER=none` turns it off, `console` prints instead. Default off. Records are
   * batched as `OTEL_BLRP_MAX_QUEUE_SIZE` (2048), `OTEL_BLRP_MAX_EXPORT_BATCH_SIZE` (512) and
   * `OTEL_BLRP_SCHEDULE_DELAY` (1000 ms) say.
   */
  logs?: boolean | { endpoint?: string; headers?: Record<string, string> };
  /**
   * Metric marks and the GenAI client metrics as OTLP metrics at `/v1/metrics`; `true` sends them
   * next to the traces endpoint. `exportIntervalMillis` default `OTEL_METRIC_EXPORT_INTERVAL`, else
   * 60000; each export is bounded by `OTEL_METRIC_EXPORT_TIMEOUT` (30000, never more than the
   * interval). `OTEL_METRICS_EXPORTER=none` turns it off, `console` prints instead. Default off.
   */
  metrics?: boolean | { endpoint?: string; headers?: Record<string, string>; exportIntervalMillis?: number };
  /**
   * Whether content reaches the spans and mark log records: messages, system instructions, tool
   * arguments and results, tool definitions (`gen_ai.tool.definitions`, OpenInference tool
   * schemas), tool result annotations, event data and the content-bearing invocation parameters.
   * Off, structure stays: names (a tool's name and description too), ids, roles, models, token
   * counts, finish reasons, numeric settings, status and errors. Default true, unlike the GenAI
   * conventions' opt-in advice (relaytrace records what it traces unless told not to);
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`false`, `NO_CONTENT`, `SPAN_ONLY`,
   * `EVENT_ONLY`, ...) decides when this option is not given. See docs/data-capture.md.
   */
  captureContent?: boolean;
  /**
   * `full` and `openinference`: also write NeMo Relay's duplicate `<ns>.start.input.*` /
   * `<ns>.end.output.*` copies of the `data` attributes (default true, for compatibility).
   */
  aliases?: boolean;
  /**
   * Which GenAI semantic conventions the `gen_ai` spans and the GenAI metrics follow: `1.41`
   * (OpenTelemetry semantic conventions v1.41) or `0.1.0` (semantic-conventions-genai v0.1.0).
   * Default: `0.1.0` when `OTEL_SEMCONV_STABILITY_OPT_IN` contains `gen_ai_latest_experimental`,
   * else `1.41`. See docs/gen-ai-conventions.md.
   */
  genAiConventions?: GenAiConventions;
}

const OWNER = "OtelExporter";

type LogsOptions = Exclude<NonNullable<OtelExporterOptions["logs"]>, boolean>;
type MetricsOptions = Exclude<NonNullable<OtelExporterOptions["metrics"]>, boolean>;

const LOGS_OPTIONS = declareOptions<LogsOptions>(OWNER, { endpoint: is.string, headers: is.stringRecord }, { prefix: "logs." });
const METRICS_OPTIONS = declareOptions<MetricsOptions>(
  OWNER,
  { endpoint: is.string, headers: is.stringRecord, exportIntervalMillis: is.numberAtLeast(1) },
  { prefix: "metrics." },
);

/** `true`, `false`, or the signal's options object. */
const signal = (declaration: OptionsDeclaration<object>) => is.either(is.boolean, is.nested(declaration));

/**
 * The exporter's options, declared once: the key list, type checks and messages derive from it.
 * `attributeMappings` and `promoteMetadataPrefixes` are checked by the attribute controls that
 * read them; URLs are parsed (with their own messages) where they are resolved.
 */
const OTEL_OPTIONS = declareOptions<OtelExporterOptions>(OWNER, {
  projection: is.required(is.oneOf("full", "openinference", "gen_ai")),
  endpoint: is.string,
  headers: is.stringRecord,
  serviceName: is.string,
  namespace: is.nonEmptyString,
  markProjection: is.oneOf("inherit", "event", "tool"),
  markExcludeNames: is.stringList,
  spanExporter: is.objectWith("an OpenTelemetry SpanExporter (an object with export())", "export"),
  timeoutMillis: is.numberAtLeast(0),
  maxQueueSize: is.numberAtLeast(1),
  maxQueueBytes: is.numberAtLeast(1),
  maxExportBatchSize: is.numberAtLeast(1),
  scheduledDelayMillis: is.numberAtLeast(0),
  resourceAttributes: is.scalarRecord,
  instrumentationScope: is.string,
  attributeMappings: is.anything,
  promoteMetadataPrefixes: is.anything,
  protocol: is.string, // its value is checked by checkProtocol, which knows what an unsupported one means
  tracerProvider: is.objectWith("an OpenTelemetry TracerProvider (an object with getTracer())", "getTracer"),
  sampler: is.objectWith("an OpenTelemetry Sampler (an object with shouldSample())", "shouldSample"),
  logs: signal(LOGS_OPTIONS),
  metrics: signal(METRICS_OPTIONS),
  captureContent: is.boolean,
  aliases: is.boolean,
  genAiConventions: is.oneOf("1.41", "0.1.0"),
});

/**
 * Checks the options against their declaration and returns the OTLP URLs to use, if any:
 * configuration mistakes fail at startup, not as lost spans.
 */
export function checkOtelOptions(options: OtelExporterOptions): {
  endpoint: string | undefined;
  logsEndpoint: string | undefined;
  metricsEndpoint: string | undefined;
} {
  OTEL_OPTIONS.check(options);
  if (options.protocol !== undefined) checkProtocol(OWNER, "protocol", options.protocol);
  const logs = options.logs === true ? {} : options.logs || undefined;
  const metrics = options.metrics === true ? {} : options.metrics || undefined;
  return {
    endpoint: resolveEndpoint(options.endpoint),
    logsEndpoint: logs ? resolveEndpoint(logs.endpoint, "logs.endpoint", "/v1/logs") : undefined,
    metricsEndpoint: metrics ? resolveEndpoint(metrics.endpoint, "metrics.endpoint", "/v1/metrics") : undefined,
  };
}

/** A bare collector URL is almost always meant as the collector's base: send to its traces path. */
function resolveEndpoint(value: unknown, key = "endpoint", path = "/v1/traces"): string | undefined {
  if (value === undefined) return undefined;
  const url = requireHttpUrl(OWNER, key, value);
  if (url.pathname !== "" && url.pathname !== "/") return value as string;
  url.pathname = path;
  return url.toString();
}
