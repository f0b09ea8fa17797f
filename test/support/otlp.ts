// A real OTLP/HTTP receiver on 127.0.0.1 that decodes what arrives with the official
// opentelemetry-proto schema (test/fixtures/otlp-proto) for protobuf bodies, and as JSON for
// JSON bodies, into one shape (OTLP/JSON field names, hex ids, int64 as strings).
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const PROTO_DIR = fileURLToPath(new URL("../fixtures/otlp-proto", import.meta.url));
const SERVICES = {
  traces: [
    "opentelemetry/proto/collector/trace/v1/trace_service.proto",
    "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
  ],
  logs: ["opentelemetry/proto/collector/logs/v1/logs_service.proto", "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"],
  metrics: [
    "opentelemetry/proto/collector/metrics/v1/metrics_service.proto",
    "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
  ],
} as const;
const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

export type OtlpSignal = keyof typeof SERVICES;

let root: protobuf.Root | undefined;

function schema(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  r.loadSync(Object.values(SERVICES).map(([file]) => file));
  root = r;
  return r;
}

/** base64 ids (protobuf `bytes`) → the lowercase hex OTLP/JSON uses; recursion bounded by the OTLP message depth. */
function hexIds(value: unknown, depth = 0): unknown {
  if (depth > 64 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => hexIds(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = ID_FIELDS.has(k) && typeof v === "string" ? Buffer.from(v, "base64").toString("hex") : hexIds(v, depth + 1);
  }
  return out;
}

export function signalOfPath(path: string): OtlpSignal {
  if (path.endsWith("logs")) return "logs";
  if (path.endsWith("metrics")) return "metrics";
  return "traces";
}

/** Decodes one export request body by its content type (`application/x-protobuf` or `application/json`). */
export function decodeOtlp(signal: OtlpSignal, contentType: string, body: Buffer): Record<string, unknown> {
  if (contentType.includes("json")) return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  const type = schema().lookupType(SERVICES[signal][1]);
  const message = type.decode(body);
  return hexIds(type.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false })) as Record<string, unknown>;
}

export interface ReceivedExport {
  path: string;
  signal: OtlpSignal;
  contentType: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL (`http://127.0.0.1:PORT`); add `/v1/traces` etc. */
  url: string;
  received: ReceivedExport[];
  close(): Promise<void>;
}

/** Starts a receiver; `status` picks the HTTP status per request (default 200). */
export async function startOtlpReceiver(status: (req: IncomingMessage) => number = () => 200): Promise<OtlpReceiver> {
  const received: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const code = status(req);
      if (code === 200) {
        const path = req.url ?? "";
        const contentType = String(req.headers["content-type"] ?? "");
        const signal = signalOfPath(path);
        received.push({ path, signal, contentType, headers: req.headers, body: decodeOtlp(signal, contentType, Buffer.concat(chunks)) });
      }
      res.writeHead(code, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface OtlpSpans {
  resourceSpans?: { resource?: { attributes?: unknown[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
}

/** Every span of a decoded traces request. */
export function spansOf(body: Record<string, unknown>): Record<string, unknown>[] {
  return ((body as OtlpSpans).resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []));
}

/** An OTLP key-value list as a plain record of its (string/int/double/bool) values. */
export function attributesOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as { key: string; value: Record<string, unknown> }[] | undefined) ?? []) {
    const v = kv.value ?? {};
    out[kv.key] =
      v["stringValue"] ?? (v["intValue"] !== undefined ? Number(v["intValue"]) : undefined) ?? v["doubleValue"] ?? v["boolValue"] ?? v;
  }
  return out;
}

/** Every log record of the `logs` exports received, in arrival order. */
export function logRecordsOf(received: readonly ReceivedExport[]): Record<string, unknown>[] {
  const list = (v: unknown) => (v as Record<string, unknown>[] | undefined) ?? [];
  return received
    .filter((r) => r.signal === "logs")
    .flatMap((r) => list(r.body["resourceLogs"]).flatMap((rl) => list(rl["scopeLogs"]).flatMap((sl) => list(sl["logRecords"]))));
}

/** Every metric of the `metrics` exports received, in arrival order (one entry per export). */
export function metricsOf(received: readonly ReceivedExport[]): Record<string, unknown>[] {
  const list = (v: unknown) => (v as Record<string, unknown>[] | undefined) ?? [];
  return received
    .filter((r) => r.signal === "metrics")
    .flatMap((r) => list(r.body["resourceMetrics"]).flatMap((rm) => list(rm["scopeMetrics"]).flatMap((sm) => list(sm["metrics"]))));
}
