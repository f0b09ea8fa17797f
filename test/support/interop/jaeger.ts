import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { httpOk, startProgram, waitUntil, type RunningProgram } from "./program.js";
import { toolPath } from "./tools.js";

/** A real Jaeger (all-in-one, memory storage) on loopback ports. */
export interface Jaeger {
  /** OTLP/HTTP base URL, e.g. `http://127.0.0.1:PORT` (append `/v1/traces`). */
  readonly otlpHttp: string;
  /** OTLP/gRPC `host:port`, for a collector's `otlp` exporter. */
  readonly otlpGrpc: string;
  /** Base URL of the HTTP query API (`/api/services`, `/api/traces`). */
  readonly query: string;
  readonly program: RunningProgram;
  stop(): Promise<void>;
}

/** Jaeger's config: the all-in-one pipeline with only the listeners a test needs, none on a fixed port. */
function jaegerConfig(ports: { grpc: number; http: number; query: number; queryGrpc: number; health: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${ports.health}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${ports.grpc}
      http:
        endpoint: 127.0.0.1:${ports.http}
processors:
  batch:
    timeout: 200ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

export async function startJaeger(): Promise<Jaeger> {
  const binary = toolPath("install-jaeger.sh");
  const ports = {
    grpc: await freePort(),
    http: await freePort(),
    query: await freePort(),
    queryGrpc: await freePort(),
    health: await freePort(),
  };
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-jaeger-"));
  const config = join(dir, "jaeger.yaml");
  await writeFile(config, jaegerConfig(ports));
  const program = startProgram("jaeger", binary, ["--config", config]);
  const query = `http://127.0.0.1:${ports.query}`;
  try {
    await waitUntil(program, "its query API answers", () => httpOk(`${query}/api/services`));
    await waitUntil(program, "its OTLP receiver listens", async () => {
      const r = await fetch(`http://127.0.0.1:${ports.http}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return r.status < 500;
    });
  } catch (error) {
    await program.stop();
    throw error;
  }
  return {
    otlpHttp: `http://127.0.0.1:${ports.http}`,
    otlpGrpc: `127.0.0.1:${ports.grpc}`,
    query,
    program,
    stop: () => program.stop(),
  };
}

/** A span as Jaeger's HTTP query API returns it (the fields the tests read). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; type: string; value: unknown }[];
  logs: { timestamp: number; fields: { key: string; value: unknown }[] }[];
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }>;
}

export async function jaegerServices(jaeger: Jaeger): Promise<string[]> {
  const body = (await (await fetch(`${jaeger.query}/api/services`)).json()) as { data: string[] | null };
  return body.data ?? [];
}

export async function jaegerTraces(jaeger: Jaeger, service: string): Promise<JaegerTrace[]> {
  const url = `${jaeger.query}/api/traces?service=${encodeURIComponent(service)}&limit=100&lookback=1h`;
  const body = (await (await fetch(url)).json()) as { data: JaegerTrace[] | null };
  return body.data ?? [];
}

export async function jaegerTrace(jaeger: Jaeger, traceId: string): Promise<JaegerTrace | undefined> {
  const response = await fetch(`${jaeger.query}/api/traces/${traceId}`);
  if (response.status === 404) return undefined;
  const body = (await response.json()) as { data: JaegerTrace[] | null };
  return body.data?.[0];
}

/** The value of one tag of a span, or undefined. */
export function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

/** The span's parent span id (CHILD_OF reference), or undefined for a root. */
export function parentOf(span: JaegerSpan): string | undefined {
  return span.references.find((r) => r.refType === "CHILD_OF")?.spanID;
}
