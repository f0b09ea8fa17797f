import { ValueType, type Attributes, type Meter } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { MeterProvider, PushMetricExporter, ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { MarkEvent, ScopeEvent } from "../../src/events/types.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { InstrumentationScope } from "./finished-span.js";
import { countedExport, type ExportResult } from "./counted-export.js";
import type { GenAiConventions } from "./env.js";
import { GenAiMetricsV141, type GenAiMetrics } from "./gen-ai-metrics.js";
import { GenAiMetricsV010 } from "./gen-ai-metrics-0.1.js";
import type { SignalSdk } from "./signal-sdk.js";

const METRIC_CODES = { failed: "otel.metrics_export_failed", what: "metric" };

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

/**
 * The metrics signal: metric marks (`runtime.metric()`) as instruments of their declared kind,
 * unit, description and attributes, plus the GenAI metrics of the conventions version in force
 * (gen-ai-metrics.ts for v1.41, gen-ai-metrics-0.1.ts for v0.1.0).
 */
export class SignalMetrics {
  private readonly provider: MeterProvider;
  private readonly meter: Meter;
  private readonly instruments = new Map<string, Recorder>();
  private readonly genAi: GenAiMetrics;

  constructor(
    sdk: SignalSdk["sdkMetrics"],
    exporter: PushMetricExporter,
    resource: Resource,
    scope: InstrumentationScope,
    reader: { exportIntervalMillis: number; exportTimeoutMillis: number },
    private readonly counter: DiagnosticCounter,
    conventions: GenAiConventions = "1.41",
  ) {
    const periodic = new sdk.PeriodicExportingMetricReader({
      exporter: new CountingMetricExporter(exporter, counter),
      exportIntervalMillis: reader.exportIntervalMillis,
      exportTimeoutMillis: Math.min(reader.exportTimeoutMillis, reader.exportIntervalMillis),
    });
    this.provider = new sdk.MeterProvider({ resource, readers: [periodic] });
    this.meter = this.provider.getMeter(scope.name, scope.version);
    this.genAi = conventions === "0.1.0" ? new GenAiMetricsV010(this.meter) : new GenAiMetricsV141(this.meter);
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
    this.genAi.onStart(start, us);
  }

  onEnd(end: ScopeEvent, us: number, errorType: string | undefined): void {
    this.genAi.onEnd(end, us, errorType);
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
