import type { TracerProvider } from "@opentelemetry/api";
import type { Sampler, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { checkProtocol, type OtlpProtocol } from "./env.js";
import type { AttributeMapping } from "./attribute-controls.js";
import type { MarkProjectionSetting } from "./marks.js";
import type { ProjectionName } from "./projection.js";
import {
  optionalNumber,
  optionalString,
  optionalStringRecord,
  rejectUnknownKeys,
  requireHttpUrl,
  requireObject,
  requireOneOf,
} from "../option-checks.js";

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
   * The app's OpenTelemetry SDK 2.x TracerProvider (a NodeSDK's global one works): spans then carry
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
  sampler?: Sampler;
  /**
   * Marks (not metric marks) as OTLP log records at `/v1/logs`; `true` sends them next to the
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
}

const OWNER = "OtelExporter";
const KEYS: readonly (keyof OtelExporterOptions)[] = [
  "projection",
  "endpoint",
  "headers",
  "serviceName",
  "namespace",
  "markProjection",
  "markExcludeNames",
  "spanExporter",
  "timeoutMillis",
  "maxQueueSize",
  "maxQueueBytes",
  "maxExportBatchSize",
  "scheduledDelayMillis",
  "resourceAttributes",
  "instrumentationScope",
  "attributeMappings",
  "promoteMetadataPrefixes",
  "protocol",
  "tracerProvider",
  "sampler",
  "logs",
  "metrics",
  "captureContent",
  "aliases",
];
const PROJECTIONS: readonly ProjectionName[] = ["full", "openinference", "gen_ai"];
const MARK_SETTINGS: readonly MarkProjectionSetting[] = ["inherit", "event", "tool"];

/**
 * Checks what the exporter itself reads (the attribute controls check their own two options) and
 * returns the OTLP URL to use, if any: configuration mistakes fail at startup, not as lost spans.
 */
export function checkOtelOptions(options: OtelExporterOptions): {
  endpoint: string | undefined;
  logsEndpoint: string | undefined;
  metricsEndpoint: string | undefined;
} {
  const bag = requireObject(OWNER, "options", options);
  rejectUnknownKeys(OWNER, bag, KEYS);
  if (bag["projection"] === undefined) throw new TypeError(`${OWNER}: projection is required ("full" | "openinference" | "gen_ai")`);
  requireOneOf(OWNER, "projection", bag["projection"], PROJECTIONS);
  requireOneOf(OWNER, "markProjection", bag["markProjection"], MARK_SETTINGS);
  optionalStringRecord(OWNER, "headers", bag["headers"]);
  optionalString(OWNER, "serviceName", bag["serviceName"]);
  if (optionalString(OWNER, "namespace", bag["namespace"]) === "") throw new TypeError(`${OWNER}: namespace must not be empty`);
  optionalString(OWNER, "instrumentationScope", bag["instrumentationScope"]);
  checkStringArray("markExcludeNames", bag["markExcludeNames"]);
  checkResourceAttributes(bag["resourceAttributes"]);
  const exporter = bag["spanExporter"];
  if (
    exporter !== undefined &&
    (typeof exporter !== "object" || exporter === null || typeof (exporter as SpanExporter).export !== "function")
  ) {
    throw new TypeError(`${OWNER}: spanExporter must be an OpenTelemetry SpanExporter (an object with export())`);
  }
  optionalNumber(OWNER, "timeoutMillis", bag["timeoutMillis"], 0);
  optionalNumber(OWNER, "maxQueueSize", bag["maxQueueSize"], 1);
  optionalNumber(OWNER, "maxQueueBytes", bag["maxQueueBytes"], 1);
  optionalNumber(OWNER, "maxExportBatchSize", bag["maxExportBatchSize"], 1);
  optionalNumber(OWNER, "scheduledDelayMillis", bag["scheduledDelayMillis"], 0);
  if (bag["protocol"] !== undefined) {
    if (typeof bag["protocol"] !== "string") throw new TypeError(`${OWNER}: protocol must be "http/protobuf" or "http/json"`);
    checkProtocol(OWNER, "protocol", bag["protocol"]);
  }
  for (const key of ["captureContent", "aliases"]) {
    if (bag[key] !== undefined && typeof bag[key] !== "boolean") throw new TypeError(`${OWNER}: ${key} must be a boolean`);
  }
  const sampler = bag["sampler"];
  if (
    sampler !== undefined &&
    (typeof sampler !== "object" || sampler === null || typeof (sampler as Sampler).shouldSample !== "function")
  ) {
    throw new TypeError(`${OWNER}: sampler must be an OpenTelemetry Sampler (an object with shouldSample())`);
  }
  const logs = checkSignal("logs", bag["logs"], ["endpoint", "headers"]);
  const metrics = checkSignal("metrics", bag["metrics"], ["endpoint", "headers", "exportIntervalMillis"]);
  if (metrics) optionalNumber(OWNER, "metrics.exportIntervalMillis", metrics["exportIntervalMillis"], 1);
  return {
    endpoint: resolveEndpoint(bag["endpoint"]),
    logsEndpoint: logs ? resolveEndpoint(logs["endpoint"], "logs.endpoint", "/v1/logs") : undefined,
    metricsEndpoint: metrics ? resolveEndpoint(metrics["endpoint"], "metrics.endpoint", "/v1/metrics") : undefined,
  };
}

/** `true`, `false` or an options object with only `allowed` keys; returns the object form. */
function checkSignal(key: string, value: unknown, allowed: string[]): Record<string, unknown> | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const bag = requireObject(OWNER, key, value);
  for (const k of Object.keys(bag)) {
    if (!allowed.includes(k)) throw new TypeError(`${OWNER}: unknown option ${key}.${k} (expected ${allowed.join(", ")})`);
  }
  optionalStringRecord(OWNER, `${key}.headers`, bag["headers"]);
  return bag;
}

/** A bare collector URL is almost always meant as the collector's base: send to its traces path. */
function resolveEndpoint(value: unknown, key = "endpoint", path = "/v1/traces"): string | undefined {
  if (value === undefined) return undefined;
  const url = requireHttpUrl(OWNER, key, value);
  if (url.pathname !== "" && url.pathname !== "/") return value as string;
  url.pathname = path;
  return url.toString();
}

function checkStringArray(key: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new TypeError(`${OWNER}: ${key} must be an array of strings`);
  }
}

function checkResourceAttributes(value: unknown): void {
  if (value === undefined) return;
  for (const [key, v] of Object.entries(requireObject(OWNER, "resourceAttributes", value))) {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      throw new TypeError(`${OWNER}: resourceAttributes.${key} must be a string, number or boolean`);
    }
  }
}
