// Reference points that do the minimum of a job without relaytrace, for the targets' ratios:
// a raw OTel span carrying the `full` projection's attribute set (to a no-op exporter or to the
// loopback OTLP receiver) and the ATOF sink's floor (build and stringify the two events, no I/O).
import { randomUUID } from "node:crypto";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { NoopSpanExporter, TOOL_NAME, toolFn } from "./workload.mjs";

/** Queue bound of every OTLP variant, reference or relaytrace: large enough that a round never drops. */
export const OTLP_QUEUE = { maxQueueSize: 131_072, maxExportBatchSize: 512, scheduledDelayMillis: 200 };

/**
 * The OTLP/HTTP exporter both sides use: protobuf (`exporter-trace-otlp-proto`, the default) or
 * JSON (`exporter-trace-otlp-http`). A flush of a long queue sends all its batches at once (up to
 * 256 with the bound above); the exporter's default limit of 30 requests in flight would fail the
 * rest, so it is raised with the queue.
 */
export async function otlpTraceExporter(url, protocol = "proto") {
  const { OTLPTraceExporter } =
    protocol === "json"
      ? await import("@opentelemetry/exporter-trace-otlp-http")
      : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url, concurrencyLimit: Math.max(30, Math.ceil(OTLP_QUEUE.maxQueueSize / OTLP_QUEUE.maxExportBatchSize)) });
}

const NS = "nemo_relay";
const SESSION = randomUUID();

/**
 * A raw span with the attributes relaytrace's `full` projection writes on a tool span (19: ids,
 * scope type, call id, handle attributes, each argument and result key under `data` and its
 * `input`/`output` alias, status metadata), set the way a hand-written instrumentation would.
 */
function fullAttributeTool(tracer) {
  return async (args) => {
    const attributes = {
      [`${NS}.uuid`]: randomUUID(),
      [`${NS}.parent_uuid`]: SESSION,
      [`${NS}.scope_type`]: "tool",
      [`${NS}.tool_call_id`]: "call_1",
      [`${NS}.handle_attributes`]: "[]",
      [`${NS}.session.instance_id`]: SESSION,
    };
    for (const key in args) {
      attributes[`${NS}.start.data.${key}`] = args[key];
      attributes[`${NS}.start.input.${key}`] = args[key];
    }
    const span = tracer.startSpan(TOOL_NAME, { kind: SpanKind.CLIENT, attributes });
    const out = await toolFn(args);
    const end = { [`${NS}.end.metadata.otel.status_code`]: "OK" };
    for (const key in out.result) {
      end[`${NS}.end.data.${key}`] = out.result[key];
      end[`${NS}.end.output.${key}`] = out.result[key];
    }
    span.setAttributes(end);
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
    return out;
  };
}

/** Raw span, full projection's attributes, BatchSpanProcessor into a no-op exporter. */
export function createRawFullTool() {
  const exporter = new NoopSpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  return {
    call: fullAttributeTool(provider.getTracer("bench-raw")),
    exporter,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The same raw span through the OTLP/HTTP exporter relaytrace's OTLP variant uses (`protocol`: proto or json), to `url`. */
export async function createRawOtlpTool(url, protocol = "proto") {
  const exporter = await otlpTraceExporter(url, protocol);
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, OTLP_QUEUE)] });
  // The SDK drops silently; a failed flush is counted here, missing spans at the receiver.
  let failedFlushes = 0;
  const flush = () => provider.forceFlush().catch(() => void failedFlushes++);
  return {
    call: fullAttributeTool(provider.getTracer("bench-raw")),
    flush,
    failures: () => failedFlushes,
    shutdown: () => provider.shutdown().catch(() => void failedFlushes++),
  };
}

let cachedSecond = -1;
let cachedPrefix = "";

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds), as ATOF timestamps are written; the date and
 * time of day are formatted once per second, as any sink writing many events a second would.
 */
function timestampMicros() {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  const second = Math.floor(micros / 1e6);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${cachedPrefix}.${String(micros % 1e6).padStart(6, "0")}Z`;
}

/**
 * What an ATOF file sink inherently does per tool call, with no I/O: build the start and end
 * events (uuid, timestamps, the same fields as relaytrace writes) and JSON.stringify each line.
 */
export function createAtofFloor() {
  let bytes = 0;
  const call = async (args) => {
    const uuid = randomUUID();
    const profile = { tool_call_id: "call_1" };
    const start = {
      kind: "scope",
      scope_category: "start",
      atof_version: "0.1",
      uuid,
      parent_uuid: SESSION,
      timestamp: timestampMicros(),
      name: TOOL_NAME,
      attributes: [],
      category: "tool",
      category_profile: profile,
      data: args,
      data_schema: null,
      metadata: null,
    };
    bytes += JSON.stringify(start).length + 1;
    const out = await toolFn(args);
    const end = {
      kind: "scope",
      scope_category: "end",
      atof_version: "0.1",
      uuid,
      parent_uuid: SESSION,
      timestamp: timestampMicros(),
      name: TOOL_NAME,
      attributes: [],
      category: "tool",
      category_profile: profile,
      data: out.result,
      data_schema: null,
      metadata: { "otel.status_code": "OK" },
    };
    bytes += JSON.stringify(end).length + 1;
    return out;
  };
  return { call, bytes: () => bytes };
}
