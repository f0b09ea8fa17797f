import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { httpOk, startProgram, waitUntil, type RunningProgram } from "./program.js";
import { ROOT, scratchDir } from "./scenarios.js";
import { toolPath } from "./tools.js";

/** A real OpenTelemetry Collector (built with the collector builder) on loopback ports. */
export interface Collector {
  /** OTLP/HTTP base URL (append `/v1/traces`, `/v1/logs`, `/v1/metrics`). */
  readonly otlpHttp: string;
  readonly program: RunningProgram;
  /** Where the file exporters write, one file per signal (the file-export configuration only). */
  readonly files: { traces: string; logs: string; metrics: string };
  stop(): Promise<void>;
}

/** Test pipeline: OTLP receiver → batch → file exporter, one pipeline and file per signal. */
function fileExportConfig(ports: { http: number; health: number }, dir: string): string {
  const pipeline = (signal: string) => `    ${signal}:
      receivers: [otlp]
      processors: [batch]
      exporters: [file/${signal}]`;
  const file = (signal: string) => `  file/${signal}:
    path: ${join(dir, `${signal}.jsonl`)}
    format: json
    flush_interval: 100ms`;
  return `extensions:
  health_check:
    endpoint: 127.0.0.1:${ports.health}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.http}
processors:
  batch:
    timeout: 200ms
exporters:
${["traces", "logs", "metrics"].map(file).join("\n")}
service:
  extensions: [health_check]
  telemetry:
    metrics:
      level: none
  pipelines:
${["traces", "logs", "metrics"].map(pipeline).join("\n")}
`;
}

async function launch(config: string, env: NodeJS.ProcessEnv, httpPort: number, healthPort: number, dir: string): Promise<Collector> {
  const program = startProgram("otelcol", toolPath("install-collector.sh"), ["--config", config], { env });
  try {
    await waitUntil(program, "its health check reports ready", () => httpOk(`http://127.0.0.1:${healthPort}/`));
  } catch (error) {
    await program.stop();
    throw error;
  }
  return {
    otlpHttp: `http://127.0.0.1:${httpPort}`,
    program,
    files: { traces: join(dir, "traces.jsonl"), logs: join(dir, "logs.jsonl"), metrics: join(dir, "metrics.jsonl") },
    stop: () => program.stop(),
  };
}

/** The collector with the file-export test pipeline. */
export async function startFileCollector(): Promise<Collector> {
  const ports = { http: await freePort(), health: await freePort() };
  const dir = await scratchDir("otelcol");
  const config = join(dir, "otelcol.yaml");
  await writeFile(config, fileExportConfig(ports, dir));
  return launch(config, {}, ports.http, ports.health, dir);
}

export const EXAMPLE_CONFIG = join(ROOT, "examples/collector/config.yaml");

/**
 * The collector running examples/collector/config.yaml as shipped, with only its documented
 * environment variables set: `env` (the backend, sampling) plus loopback ports of its own.
 */
export async function startExampleCollector(env: Record<string, string>): Promise<Collector> {
  const ports = { http: await freePort(), grpc: await freePort(), health: await freePort(), metrics: await freePort() };
  const dir = await scratchDir("otelcol-example");
  return launch(
    EXAMPLE_CONFIG,
    {
      ...env,
      OTLP_HTTP_ENDPOINT: `127.0.0.1:${ports.http}`,
      OTLP_GRPC_ENDPOINT: `127.0.0.1:${ports.grpc}`,
      HEALTH_CHECK_ENDPOINT: `127.0.0.1:${ports.health}`,
      TELEMETRY_METRICS_PORT: String(ports.metrics),
    },
    ports.http,
    ports.health,
    dir,
  );
}

/** Every OTLP/JSON request the file exporter wrote to `path` (one per line); none if the file is absent. */
export async function readExported<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
export interface OtlpAttribute {
  key: string;
  value: AnyValue;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  status?: { code?: number; message?: string };
  attributes?: OtlpAttribute[];
}
export interface TracesRequest {
  resourceSpans: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans: { spans?: OtlpSpan[] }[] }[];
}
export interface LogsRequest {
  resourceLogs: {
    scopeLogs: {
      logRecords?: {
        eventName?: string;
        severityNumber?: number;
        severityText?: string;
        body?: unknown;
        attributes?: OtlpAttribute[];
        traceId?: string;
        spanId?: string;
      }[];
    }[];
  }[];
}
export interface MetricsRequest {
  resourceMetrics: {
    scopeMetrics: {
      metrics?: {
        name: string;
        unit?: string;
        description?: string;
        sum?: { isMonotonic?: boolean; dataPoints?: { attributes?: OtlpAttribute[]; asInt?: string | number; asDouble?: number }[] };
        gauge?: unknown;
        histogram?: { dataPoints?: { attributes?: OtlpAttribute[]; count?: string | number; sum?: number }[] };
      }[];
    }[];
  }[];
}

export function spansOf(requests: TracesRequest[]): { service: string | undefined; span: OtlpSpan }[] {
  return requests.flatMap((r) =>
    r.resourceSpans.flatMap((rs) => {
      const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue;
      return rs.scopeSpans.flatMap((ss) => (ss.spans ?? []).map((span) => ({ service, span })));
    }),
  );
}

export function attr(attributes: OtlpAttribute[] | undefined, key: string): unknown {
  const value = attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
}
