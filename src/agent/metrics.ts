import type { Attributes, Counter, Histogram, MeterProvider } from "@opentelemetry/api";
import { packageVersion } from "../events/package-version.js";
import { createLoopInstruments, LOOP_INSTRUMENTS, recordLoopMetric, type LoopInstruments } from "./loop-instruments.js";
import { PrometheusMeter } from "./prometheus-meter.js";
import type { Metric } from "./types.js";

/** Where a client's loop measurements go besides its built-in Prometheus meter. */
export interface MetricsSinks {
  /** The app's OpenTelemetry meter provider: the same instruments on its `relaytrace` meter. */
  meterProvider?: MeterProvider;
  /** The per-measurement callback, handed today's `Metric` object. */
  onMetric?: (metric: Metric) => void;
}

/** Calls the app's instrument method, swallowing what it throws: telemetry never breaks a run. */
function guard(instrument: object, method: unknown): (value: number, attributes?: Attributes) => void {
  return (value, attributes) => {
    try {
      (method as (value: number, attributes?: Attributes) => void).call(instrument, value, attributes);
    } catch {
      // the app's instrument failed; the loop's own meter and the run go on
    }
  };
}

/** The loop's instruments on the app's meter, each guarded; none when the provider fails to make them. */
function appInstruments(provider: MeterProvider): LoopInstruments | undefined {
  try {
    const made = createLoopInstruments(provider.getMeter("relaytrace", packageVersion()));
    const out: Record<string, Counter | Histogram> = {};
    for (const [key, instrument] of Object.entries(made) as [keyof LoopInstruments, Counter & Histogram][]) {
      const counter = LOOP_INSTRUMENTS[key].kind === "counter";
      out[key] = counter ? { add: guard(instrument, instrument.add) } : { record: guard(instrument, instrument.record) };
    }
    return out as LoopInstruments;
  } catch {
    return undefined;
  }
}

/**
 * A client's one metrics path: each loop measurement is recorded on OpenTelemetry instruments
 * declared once (`LOOP_INSTRUMENTS`), made on the built-in Prometheus meter (`render()`, behind
 * `client.metrics()`) and, when given, on the app's `MeterProvider`; `onMetric` is handed the
 * measurement at the same point. Nothing the app supplies can make `record` throw.
 */
export class MetricsRecorder {
  private readonly meter = new PrometheusMeter();
  private readonly builtIn: LoopInstruments = createLoopInstruments(this.meter);
  private readonly app: LoopInstruments | undefined;
  private readonly onMetric: ((metric: Metric) => void) | undefined;

  constructor(sinks: MetricsSinks = {}) {
    this.app = sinks.meterProvider ? appInstruments(sinks.meterProvider) : undefined;
    this.onMetric = sinks.onMetric;
  }

  record(m: Metric): void {
    recordLoopMetric(this.builtIn, m);
    if (this.app) recordLoopMetric(this.app, m);
    if (!this.onMetric) return;
    try {
      this.onMetric(m);
    } catch {
      // A metrics callback is telemetry: it never breaks the run.
    }
  }

  /** Byte-stable text: fixed metric order, every header even without samples, series sorted by label string, trailing newline. */
  render(): string {
    return this.meter.render();
  }
}
