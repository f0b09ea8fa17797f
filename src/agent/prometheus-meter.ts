import type {
  Attributes,
  AttributeValue,
  Counter,
  Gauge,
  Histogram,
  Meter,
  MetricOptions,
  ObservableCounter,
  ObservableGauge,
  ObservableUpDownCounter,
  UpDownCounter,
} from "@opentelemetry/api";

/** The OpenTelemetry SDK's default histogram boundaries, for a histogram created without advice. */
const DEFAULT_BUCKETS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

/**
 * The Prometheus name of an OpenTelemetry instrument: characters outside `[a-zA-Z0-9_:]` become
 * `_`, the unit adds its suffix (`s` → `_seconds`; an annotation such as `{request}` adds none)
 * and a counter ends in `_total`.
 */
export function prometheusName(name: string, unit: string | undefined, kind: "counter" | "histogram"): string {
  let out = name.replace(/[^a-zA-Z0-9_:]/g, "_");
  const suffix = unit === "s" ? "seconds" : unit && !unit.startsWith("{") ? unit.replace(/[^a-zA-Z0-9_:]/g, "_") : "";
  if (suffix && !out.endsWith(`_${suffix}`)) out += `_${suffix}`;
  return kind === "counter" && !out.endsWith("_total") ? `${out}_total` : out;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelValue(v: AttributeValue | undefined): string {
  return Array.isArray(v) ? v.join(",") : String(v);
}

type Labels = [key: string, value: string][];

function labelsOf(attributes: Attributes | undefined): Labels {
  return Object.entries(attributes ?? {}).map(([k, v]) => [k, labelValue(v)]);
}

function labelText(labels: Labels): string {
  return labels.length === 0 ? "" : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

/** A value a counter or histogram accepts: finite and not negative (the OpenTelemetry contract). */
const accepted = (value: number): boolean => typeof value === "number" && Number.isFinite(value) && value >= 0;

interface Rendered {
  render(): string;
}

class PromCounter implements Counter, Rendered {
  private readonly series = new Map<string, number>();
  constructor(
    private readonly name: string,
    private readonly help: string,
  ) {}
  add(value: number, attributes?: Attributes): void {
    if (!accepted(value)) return;
    const key = labelText(labelsOf(attributes));
    this.series.set(key, (this.series.get(key) ?? 0) + value);
  }
  render(): string {
    // The header renders before any sample, so a scrape before the first run is well-formed.
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const key of [...this.series.keys()].sort()) lines.push(`${this.name}${key} ${this.series.get(key)}`);
    return lines.join("\n") + "\n";
  }
}

interface HistogramSeries {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

class PromHistogram implements Histogram, Rendered {
  private readonly series = new Map<string, HistogramSeries>();
  constructor(
    private readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[],
  ) {}
  record(value: number, attributes?: Attributes): void {
    if (!accepted(value)) return;
    const labels = labelsOf(attributes);
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (value <= b) s.counts[i]! += 1;
    });
    s.sum += value;
    s.count += 1;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const key of [...this.series.keys()].sort()) {
      const s = this.series.get(key)!;
      const bucket = (le: string, n: number) => `${this.name}_bucket${labelText([...s.labels, ["le", le]])} ${n}`;
      this.buckets.forEach((b, i) => lines.push(bucket(String(b), s.counts[i]!)));
      lines.push(bucket("+Inf", s.count));
      lines.push(`${this.name}_sum${key} ${s.sum}`);
      lines.push(`${this.name}_count${key} ${s.count}`);
    }
    return lines.join("\n") + "\n";
  }
}

function unsupported(kind: string, name?: string): never {
  const what = name === undefined ? kind : `${kind} (${JSON.stringify(name)})`;
  throw new TypeError(`relaytrace's Prometheus meter records counters and histograms only, not ${what}`);
}

/**
 * A synchronous OpenTelemetry `Meter` that keeps its series in memory and renders them as
 * Prometheus text: metrics in creation order, each with its `# HELP`/`# TYPE` header even before
 * any sample, series sorted by label text, label values escaped, a trailing newline. It makes
 * counters and histograms (explicit bucket advice, else the SDK's default boundaries); the other
 * instrument kinds throw a TypeError.
 */
export class PrometheusMeter implements Meter {
  private readonly instruments: Rendered[] = [];

  createCounter(name: string, options?: MetricOptions): Counter {
    const counter = new PromCounter(prometheusName(name, options?.unit, "counter"), options?.description ?? "");
    this.instruments.push(counter);
    return counter;
  }

  createHistogram(name: string, options?: MetricOptions): Histogram {
    const buckets = options?.advice?.explicitBucketBoundaries ?? DEFAULT_BUCKETS;
    const histogram = new PromHistogram(prometheusName(name, options?.unit, "histogram"), options?.description ?? "", [...buckets]);
    this.instruments.push(histogram);
    return histogram;
  }

  createGauge(name: string): Gauge {
    return unsupported("gauges", name);
  }
  createUpDownCounter(name: string): UpDownCounter {
    return unsupported("up-down counters", name);
  }
  createObservableGauge(name: string): ObservableGauge {
    return unsupported("observable gauges", name);
  }
  createObservableCounter(name: string): ObservableCounter {
    return unsupported("observable counters", name);
  }
  createObservableUpDownCounter(name: string): ObservableUpDownCounter {
    return unsupported("observable up-down counters", name);
  }
  addBatchObservableCallback(): void {
    unsupported("batch observable callbacks");
  }
  removeBatchObservableCallback(): void {
    unsupported("batch observable callbacks");
  }

  /** Byte-stable Prometheus text of every instrument made on this meter. */
  render(): string {
    return this.instruments.map((i) => i.render()).join("");
  }
}
