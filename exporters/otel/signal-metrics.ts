import { SpanKind, ValueType, type Attributes, type Histogram, type Meter } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { MarkEvent, ScopeEvent } from "../../src/events/types.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { InstrumentationScope } from "./finished-span.js";
import { GenAiProjection } from "./gen-ai.js";
import { timesPerOutputChunkOf, timeToFirstChunkOf } from "./gen-ai-llm.js";
import type { OpenSpan } from "./open-span.js";
import { scopeTypeOf } from "./scope-attributes.js";
import * as G from "./semconv.js";
import { countedExport, type ExportResult } from "./counted-export.js";

const METRIC_CODES = { failed: "otel.metrics_export_failed", what: "metric" };

/** Bucket advice of the GenAI semantic conventions (v1.41) for the client histograms (seconds, tokens). */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Attributes of a chat span the client metrics carry (gen_ai client metric attributes). */
const METRIC_ATTRIBUTES = [
  G.GEN_AI_OPERATION_NAME,
  G.GEN_AI_PROVIDER_NAME,
  G.GEN_AI_REQUEST_MODEL,
  G.GEN_AI_RESPONSE_MODEL,
  G.SERVER_ADDRESS,
  G.SERVER_PORT,
];
/** LLM calls waiting for their end; past this the oldest is forgotten (an end that never comes). */
const MAX_OPEN_CALLS = 4096;

type Recorder = { add?: (v: number, a?: Attributes) => void; record?: (v: number, a?: Attributes) => void };

class CountingMetricExporter implements PushMetricExporter {
  readonly selectAggregationTemporality: PushMetricExporter["selectAggregationTemporality"];
  readonly selectAggregation: PushMetricExporter["selectAggregation"];

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly counter: DiagnosticCounter,
  ) {
    this.selectAggregationTemporality = inner.selectAggregationTemporality?.bind(inner);
    this.selectAggregation = inner.selectAggregation?.bind(inner);
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    countedExport((cb) => this.inner.export(metrics, cb), 1, done, this.counter, METRIC_CODES);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

function scratchSpan(start: ScopeEvent, startUs: number): OpenSpan {
  return {
    uuid: start.uuid,
    name: start.name,
    kind: SpanKind.CLIENT,
    category: start.category,
    scopeType: scopeTypeOf(start.category),
    context: { traceId: "", spanId: "", traceFlags: 0 },
    parentContext: undefined,
    parentSpan: undefined,
    isTraceRoot: false,
    startUs,
    start,
    attributes: {},
    events: [],
    ended: false,
  };
}

/**
 * The metrics signal: metric marks (`runtime.metric()`) as instruments of their declared kind,
 * unit, description and attributes, plus the GenAI client metrics of every `llm` scope
 * (`gen_ai.client.operation.duration` in seconds, `gen_ai.client.token.usage` per token type, and
 * for streamed calls `gen_ai.client.operation.time_to_first_chunk` and `time_per_output_chunk`).
 */
export class SignalMetrics {
  private readonly provider: MeterProvider;
  private readonly meter: Meter;
  private readonly instruments = new Map<string, Recorder>();
  private readonly calls = new Map<string, OpenSpan>();
  private readonly genAi = new GenAiProjection();
  private readonly duration: Histogram;
  private readonly tokens: Histogram;
  private readonly firstChunk: Histogram;
  private readonly perChunk: Histogram;

  constructor(
    exporter: PushMetricExporter,
    resource: Resource,
    scope: InstrumentationScope,
    reader: { exportIntervalMillis: number; exportTimeoutMillis: number },
    private readonly counter: DiagnosticCounter,
  ) {
    const periodic = new PeriodicExportingMetricReader({
      exporter: new CountingMetricExporter(exporter, counter),
      exportIntervalMillis: reader.exportIntervalMillis,
      exportTimeoutMillis: Math.min(reader.exportTimeoutMillis, reader.exportIntervalMillis),
    });
    this.provider = new MeterProvider({ resource, readers: [periodic] });
    this.meter = this.provider.getMeter(scope.name, scope.version);
    this.duration = this.meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "GenAI operation duration",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.tokens = this.meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Number of input and output tokens used",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.firstChunk = this.meter.createHistogram("gen_ai.client.operation.time_to_first_chunk", {
      unit: "s",
      description: "Time to receive the first chunk of a streamed response",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.perChunk = this.meter.createHistogram("gen_ai.client.operation.time_per_output_chunk", {
      unit: "s",
      description: "Time between consecutive output chunks of a streamed response, for each chunk after the first",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  /** Records every well-formed measurement of a metric mark; a malformed one is counted and skipped. */
  onMetricMark(mark: MarkEvent): void {
    const data = mark.data;
    const list = isJsonObject(data) ? data["measurements"] : undefined;
    if (!Array.isArray(list)) {
      this.counter.record("otel.metric_mark_invalid", `metric mark ${mark.name}: data.measurements is not an array`);
      return;
    }
    for (const m of list) this.record(mark.name, m);
  }

  onStart(start: ScopeEvent, us: number): void {
    if (scopeTypeOf(start.category) !== "llm") return;
    const span = scratchSpan(start, us);
    this.genAi.onStart(start, span);
    if (this.calls.size >= MAX_OPEN_CALLS) this.calls.delete(this.calls.keys().next().value!);
    this.calls.set(start.uuid, span);
  }

  onEnd(end: ScopeEvent, us: number, errorType: string | undefined): void {
    const span = this.calls.get(end.uuid);
    if (span === undefined) return;
    this.calls.delete(end.uuid);
    if (errorType === undefined) this.genAi.onEnd(end, span);
    const attrs: Attributes = {};
    for (const key of METRIC_ATTRIBUTES) if (span.attributes[key] !== undefined) attrs[key] = span.attributes[key];
    if (errorType !== undefined) attrs[G.ERROR_TYPE] = errorType;
    this.duration.record(Math.max(0, us - span.startUs) / 1_000_000, attrs);
    // Streamed calls only: the runtime records the first chunk's time on the end event.
    const firstChunk = timeToFirstChunkOf(end);
    if (firstChunk !== undefined) this.firstChunk.record(firstChunk, attrs);
    for (const gap of timesPerOutputChunkOf(end)) this.perChunk.record(gap, attrs);
    const input = span.attributes[G.GEN_AI_USAGE_INPUT_TOKENS];
    const output = span.attributes[G.GEN_AI_USAGE_OUTPUT_TOKENS];
    if (typeof input === "number") this.tokens.record(input, { ...attrs, "gen_ai.token.type": "input" });
    if (typeof output === "number") this.tokens.record(output, { ...attrs, "gen_ai.token.type": "output" });
  }

  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }

  private record(markName: string, m: Json): void {
    if (!isJsonObject(m) || typeof m["name"] !== "string" || typeof m["value"] !== "number" || !Number.isFinite(m["value"])) {
      this.counter.record(
        "otel.metric_mark_invalid",
        `metric mark ${markName}: a measurement without a name and a finite value was skipped`,
      );
      return;
    }
    const kind = m["kind"];
    const name = m["name"];
    const key = `${String(kind)}\u0000${name}`;
    let instrument = this.instruments.get(key);
    if (instrument === undefined) {
      const options: { unit?: string; description?: string; valueType?: ValueType; advice?: { explicitBucketBoundaries: number[] } } = {};
      if (typeof m["unit"] === "string") options.unit = m["unit"];
      if (typeof m["description"] === "string") options.description = m["description"];
      options.valueType = m["value_type"] === "f64" ? ValueType.DOUBLE : ValueType.INT;
      const bounds = m["boundaries"];
      if (Array.isArray(bounds) && bounds.every((b) => typeof b === "number"))
        options.advice = { explicitBucketBoundaries: bounds as number[] };
      switch (kind) {
        case "counter":
          instrument = this.meter.createCounter(name, options);
          break;
        case "up_down_counter":
          instrument = this.meter.createUpDownCounter(name, options);
          break;
        case "gauge":
          instrument = this.meter.createGauge(name, options);
          break;
        case "histogram":
          instrument = this.meter.createHistogram(name, options);
          break;
        default:
          this.counter.record("otel.metric_mark_invalid", `metric mark ${markName}: unknown kind ${JSON.stringify(kind)} of ${name}`);
          return;
      }
      this.instruments.set(key, instrument);
    }
    const attrs = isJsonObject(m["attributes"]) ? (m["attributes"] as Attributes) : undefined;
    if (instrument.add) instrument.add(m["value"], attrs);
    else instrument.record!(m["value"], attrs);
  }
}
