import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type StandardSampler } from "./samplers.js";

/**
 * The standard OpenTelemetry SDK environment variables relaytrace's exporter honours. Options
 * given in code always win; a variable only fills what the code left unset. A malformed value is
 * reported (returned in `problems`) and the specification's default is used instead.
 */

export type OtlpProtocol = "http/protobuf" | "http/json";
export type Signal = "traces" | "logs" | "metrics";
export type ExporterChoice = "otlp" | "console" | "none";

type Env = Record<string, string | undefined>;

export interface EnvProblem {
  variable: string;
  message: string;
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

const PROTOCOLS: readonly string[] = ["http/protobuf", "http/json"];

/** Throws on `grpc` (and anything unknown): a misconfigured transport must fail at startup, not lose data. */
export function checkProtocol(owner: string, where: string, value: string): OtlpProtocol {
  if (PROTOCOLS.includes(value)) return value as OtlpProtocol;
  if (value === "grpc") {
    throw new TypeError(
      `${owner}: ${where} "grpc" is not supported; use "http/protobuf" (the default) or "http/json" over OTLP/HTTP (port 4318)`,
    );
  }
  throw new TypeError(`${owner}: ${where} must be "http/protobuf" or "http/json", got ${JSON.stringify(value)}`);
}

/** `OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
export function protocolFromEnv(owner: string, signal: Signal, env: Env = process.env): OtlpProtocol {
  const specific = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_PROTOCOL`;
  const value = read(env, specific) ?? read(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (value === undefined) return "http/protobuf";
  return checkProtocol(owner, read(env, specific) !== undefined ? specific : "OTEL_EXPORTER_OTLP_PROTOCOL", value);
}

/** `OTEL_SDK_DISABLED=true` turns every signal off. */
export function sdkDisabled(env: Env = process.env): boolean {
  return read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true";
}

/** `OTEL_TRACES_EXPORTER` / `OTEL_LOGS_EXPORTER` / `OTEL_METRICS_EXPORTER`: `otlp` (default), `console` or `none`. */
export function exporterFromEnv(signal: Signal, problems: EnvProblem[], env: Env = process.env): ExporterChoice {
  const variable = `OTEL_${signal.toUpperCase()}_EXPORTER`;
  const value = read(env, variable);
  if (value === undefined) return "otlp";
  const choices = value.split(",").map((v) => v.trim().toLowerCase());
  if (choices.includes("none")) return "none";
  if (choices.includes("otlp")) return "otlp";
  if (choices.includes("console")) return "console";
  problems.push({ variable, message: `${variable}=${value} is not supported (otlp, console or none); using otlp` });
  return "otlp";
}

/** A non-negative integer variable, or undefined (with a problem when it is malformed). */
export function integerFromEnv(name: string, problems: EnvProblem[], env: Env = process.env): number | undefined {
  const value = read(env, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) {
    problems.push({ variable: name, message: `${name}=${value} is not a non-negative integer; ignored` });
    return undefined;
  }
  return n;
}

/** A positive integer variable, or undefined (with a problem when it is malformed or 0). */
export function positiveIntegerFromEnv(name: string, problems: EnvProblem[], env: Env = process.env): number | undefined {
  const n = integerFromEnv(name, problems, env);
  if (n !== 0) return n;
  problems.push({ variable: name, message: `${name}=0 is not a positive integer; ignored` });
  return undefined;
}

/** A batch processor's settings as the variables give them; undefined where a variable is unset or malformed. */
export interface BatchEnvSettings {
  scheduledDelayMillis: number | undefined;
  exportTimeoutMillis: number | undefined;
  maxQueueSize: number | undefined;
  maxExportBatchSize: number | undefined;
}

/** The specification's defaults for the batch span processor (`OTEL_BSP_*`). */
export const BSP_DEFAULTS = {
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30_000,
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
} as const;
/** The specification's defaults for the batch log record processor (`OTEL_BLRP_*`). */
export const BLRP_DEFAULTS = {
  scheduledDelayMillis: 1000,
  exportTimeoutMillis: 30_000,
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
} as const;
/** The specification's defaults for the periodic metric reader (`OTEL_METRIC_EXPORT_*`). */
export const METRIC_READER_DEFAULTS = { exportIntervalMillis: 60_000, exportTimeoutMillis: 30_000 } as const;

function batchFromEnv(prefix: "OTEL_BSP" | "OTEL_BLRP", problems: EnvProblem[], env: Env): BatchEnvSettings {
  return {
    scheduledDelayMillis: integerFromEnv(`${prefix}_SCHEDULE_DELAY`, problems, env),
    exportTimeoutMillis: positiveIntegerFromEnv(`${prefix}_EXPORT_TIMEOUT`, problems, env),
    maxQueueSize: positiveIntegerFromEnv(`${prefix}_MAX_QUEUE_SIZE`, problems, env),
    maxExportBatchSize: positiveIntegerFromEnv(`${prefix}_MAX_EXPORT_BATCH_SIZE`, problems, env),
  };
}

/** The batch span processor settings of `OTEL_BSP_*`. */
export function batchSettingsFromEnv(problems: EnvProblem[], env: Env = process.env): BatchEnvSettings {
  return batchFromEnv("OTEL_BSP", problems, env);
}

/** The batch log record processor settings of `OTEL_BLRP_*`. */
export function logBatchSettingsFromEnv(problems: EnvProblem[], env: Env = process.env): BatchEnvSettings {
  return batchFromEnv("OTEL_BLRP", problems, env);
}

/** The periodic metric reader's `OTEL_METRIC_EXPORT_INTERVAL` and `OTEL_METRIC_EXPORT_TIMEOUT`. */
export function metricReaderSettingsFromEnv(
  problems: EnvProblem[],
  env: Env = process.env,
): { exportIntervalMillis: number | undefined; exportTimeoutMillis: number | undefined } {
  return {
    exportIntervalMillis: positiveIntegerFromEnv("OTEL_METRIC_EXPORT_INTERVAL", problems, env),
    exportTimeoutMillis: positiveIntegerFromEnv("OTEL_METRIC_EXPORT_TIMEOUT", problems, env),
  };
}

/** Span attribute limits: `OTEL_SPAN_ATTRIBUTE_*`, falling back to the general `OTEL_ATTRIBUTE_*`. */
export function spanLimitsFromEnv(problems: EnvProblem[], env: Env = process.env): { valueLength?: number; count?: number } {
  const valueLength =
    integerFromEnv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", problems, env) ??
    integerFromEnv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", problems, env);
  const count =
    integerFromEnv("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", problems, env) ?? integerFromEnv("OTEL_ATTRIBUTE_COUNT_LIMIT", problems, env);
  const limits: { valueLength?: number; count?: number } = {};
  if (valueLength !== undefined) limits.valueLength = valueLength;
  if (count !== undefined) limits.count = count;
  return limits;
}

/** Log record attribute limits: `OTEL_LOGRECORD_ATTRIBUTE_*`, falling back to the general `OTEL_ATTRIBUTE_*`. */
export function logRecordLimitsFromEnv(problems: EnvProblem[], env: Env = process.env): { valueLength?: number; count?: number } {
  const valueLength =
    integerFromEnv("OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", problems, env) ??
    integerFromEnv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", problems, env);
  const count =
    integerFromEnv("OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT", problems, env) ?? integerFromEnv("OTEL_ATTRIBUTE_COUNT_LIMIT", problems, env);
  const limits: { valueLength?: number; count?: number } = {};
  if (valueLength !== undefined) limits.valueLength = valueLength;
  if (count !== undefined) limits.count = count;
  return limits;
}

/** Export timeout: `OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`. */
export function timeoutFromEnv(signal: Signal, problems: EnvProblem[], env: Env = process.env): number | undefined {
  return (
    integerFromEnv(`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_TIMEOUT`, problems, env) ??
    integerFromEnv("OTEL_EXPORTER_OTLP_TIMEOUT", problems, env)
  );
}

/** The GenAI semantic conventions the `gen_ai` projection and the GenAI metrics follow. */
export type GenAiConventions = "1.41" | "0.1.0";

/**
 * `OTEL_SEMCONV_STABILITY_OPT_IN`, a comma-separated list: `gen_ai_latest_experimental` in it
 * selects semantic-conventions-genai v0.1.0; otherwise (unset, or other categories only) v1.41.
 */
export function genAiConventionsFromEnv(env: Env = process.env): GenAiConventions {
  const list = read(env, "OTEL_SEMCONV_STABILITY_OPT_IN");
  if (list === undefined) return "1.41";
  return list.split(",").some((v) => v.trim().toLowerCase() === "gen_ai_latest_experimental") ? "0.1.0" : "1.41";
}

/** Where content may go: span attributes, and event records (the mark log records). */
export interface ContentCapture {
  spans: boolean;
  events: boolean;
}

const CAPTURE_MODES: Record<string, ContentCapture> = {
  true: { spans: true, events: true },
  false: { spans: false, events: false },
  no_content: { spans: false, events: false },
  span_only: { spans: true, events: false },
  event_only: { spans: false, events: true },
  span_and_event: { spans: true, events: true },
};

/**
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` read as the OpenTelemetry GenAI
 * instrumentations read it: `true`/`false`, or the newer modes `NO_CONTENT`, `SPAN_ONLY`,
 * `EVENT_ONLY`, `SPAN_AND_EVENT` (case-insensitive). Unset: undefined. Anything else captures
 * nothing, as the instrumentations do (only a recognised value turns content on), and is reported.
 */
export function contentCaptureFromEnv(problems: EnvProblem[], env: Env = process.env): ContentCapture | undefined {
  const variable = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
  const value = read(env, variable);
  if (value === undefined) return undefined;
  const mode = CAPTURE_MODES[value.toLowerCase()];
  if (mode !== undefined) return mode;
  problems.push({
    variable,
    message: `${variable}=${value} is not true, false, NO_CONTENT, SPAN_ONLY, EVENT_ONLY or SPAN_AND_EVENT; capturing no content`,
  });
  return { spans: false, events: false };
}

function ratio(problems: EnvProblem[], env: Env): number {
  const arg = read(env, "OTEL_TRACES_SAMPLER_ARG");
  if (arg === undefined) return 1;
  const n = Number(arg);
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    problems.push({ variable: "OTEL_TRACES_SAMPLER_ARG", message: `OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio in [0, 1]; using 1` });
    return 1;
  }
  return n;
}

/**
 * The sampler named by `OTEL_TRACES_SAMPLER` (+ `_ARG`); default parent-based always-on. Built from
 * relaytrace's own copies of the SDK's standard samplers (samplers.ts), which decide alike.
 */
export function samplerFromEnv(problems: EnvProblem[], env: Env = process.env): StandardSampler {
  const name = read(env, "OTEL_TRACES_SAMPLER")?.toLowerCase();
  switch (name) {
    case undefined:
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio(problems, env));
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio(problems, env)) });
    default:
      problems.push({
        variable: "OTEL_TRACES_SAMPLER",
        message: `OTEL_TRACES_SAMPLER=${name} is not supported; using parentbased_always_on`,
      });
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
