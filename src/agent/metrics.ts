import type { Metric } from "./types.js";

const BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  return keys.length === 0 ? "" : `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(",")}}`;
}

class Counter {
  private readonly series = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  add(labels: Labels, by = 1): void {
    const key = labelText(labels);
    this.series.set(key, (this.series.get(key) ?? 0) + by);
  }
  render(): string {
    // The header renders before any sample, so a scrape before the first run is well-formed.
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const key of [...this.series.keys()].sort()) lines.push(`${this.name}${key} ${this.series.get(key)}`);
    return lines.join("\n") + "\n";
  }
}

class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  observe(labels: Labels, seconds: number): void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) s!.counts[i]! += 1;
    });
    s.sum += seconds;
    s.count += 1;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const key of [...this.series.keys()].sort()) {
      const s = this.series.get(key)!;
      BUCKETS.forEach((b, i) => lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(b) })} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${s.count}`);
      lines.push(`${this.name}_sum${key} ${s.sum}`);
      lines.push(`${this.name}_count${key} ${s.count}`);
    }
    return lines.join("\n") + "\n";
  }
}

/**
 * Aggregates a client's metric events into Prometheus text exposition. Names, help texts and
 * layout are toolnexus's, so a dashboard built on a toolnexus port reads these unchanged.
 */
export class MetricsRecorder {
  private readonly llmRequests = new Counter("toolnexus_llm_requests_total", "Total LLM requests.");
  private readonly llmTokens = new Counter("toolnexus_llm_tokens_total", "Total tokens, by type.");
  private readonly llmDuration = new Histogram("toolnexus_llm_request_duration_seconds", "LLM request duration in seconds.");
  private readonly toolCalls = new Counter("toolnexus_tool_calls_total", "Total tool calls.");
  private readonly toolDuration = new Histogram("toolnexus_tool_duration_seconds", "Tool execution duration in seconds.");
  private readonly runErrors = new Counter("toolnexus_run_errors_total", "Total run errors.");

  record(m: Metric): void {
    if (m.event === "llm") {
      this.llmRequests.add({ model: m.model, status: m.status });
      // A failed call has no usage: it adds no token series.
      if (m.status === "ok") {
        this.llmTokens.add({ type: "prompt" }, m.promptTokens);
        this.llmTokens.add({ type: "completion" }, m.completionTokens);
      }
      this.llmDuration.observe({ model: m.model }, m.ms / 1000);
    } else if (m.event === "tool") {
      this.toolCalls.add({ tool: m.tool, source: m.source, is_error: String(m.isError), pending: String(m.pending === true) });
      this.toolDuration.observe({ tool: m.tool }, m.ms / 1000);
    } else if (m.error !== undefined) {
      this.runErrors.add({ model: m.model });
    }
  }

  /** Byte-stable text: fixed metric order, every header even without samples, series sorted by label string, trailing newline. */
  render(): string {
    return [this.llmRequests, this.llmTokens, this.llmDuration, this.toolCalls, this.toolDuration, this.runErrors]
      .map((m) => m.render())
      .join("");
  }
}
