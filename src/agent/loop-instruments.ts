import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";
import type { Metric } from "./types.js";

/** Bucket boundaries of the loop's duration histograms, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One instrument of the agent loop, declared once for every meter it is recorded on. */
export interface LoopInstrumentSpec {
  /** The OpenTelemetry instrument name; the Prometheus name derives from it and the unit. */
  readonly name: string;
  readonly kind: "counter" | "histogram";
  /** UCUM unit: `s` for durations, an annotation such as `{request}` for counts. */
  readonly unit: string;
  /** The description, which is also the Prometheus `# HELP` text. */
  readonly description: string;
  /** The attribute keys of every measurement, in the order they are recorded. */
  readonly attributes: readonly string[];
  /** Explicit bucket boundaries (histograms), handed to the meter as advice. */
  readonly buckets?: readonly number[];
}

/**
 * The loop's instruments, in the order `client.metrics()` renders them. Names and help texts are
 * toolnexus's (its Prometheus names follow from name and unit: dots become underscores, `s` adds
 * `_seconds`, a counter adds `_total`), so a dashboard built on a toolnexus port reads them unchanged.
 */
export const LOOP_INSTRUMENTS = {
  llmRequests: {
    name: "toolnexus.llm.requests",
    kind: "counter",
    unit: "{request}",
    description: "Total LLM requests.",
    attributes: ["model", "status"],
  },
  llmTokens: {
    name: "toolnexus.llm.tokens",
    kind: "counter",
    unit: "{token}",
    description: "Total tokens, by type.",
    attributes: ["type"],
  },
  llmDuration: {
    name: "toolnexus.llm.request.duration",
    kind: "histogram",
    unit: "s",
    description: "LLM request duration in seconds.",
    attributes: ["model"],
    buckets: DURATION_BUCKETS,
  },
  toolCalls: {
    name: "toolnexus.tool.calls",
    kind: "counter",
    unit: "{call}",
    description: "Total tool calls.",
    attributes: ["tool", "source", "is_error", "pending"],
  },
  toolDuration: {
    name: "toolnexus.tool.duration",
    kind: "histogram",
    unit: "s",
    description: "Tool execution duration in seconds.",
    attributes: ["tool"],
    buckets: DURATION_BUCKETS,
  },
  runErrors: {
    name: "toolnexus.run.errors",
    kind: "counter",
    unit: "{error}",
    description: "Total run errors.",
    attributes: ["model"],
  },
} as const satisfies Record<string, LoopInstrumentSpec>;

type Names = keyof typeof LOOP_INSTRUMENTS;

/** The loop's instruments made on one meter. */
export type LoopInstruments = {
  readonly [K in Names]: (typeof LOOP_INSTRUMENTS)[K]["kind"] extends "counter" ? Counter : Histogram;
};

/** Makes every declared instrument on `meter`, in declaration order. */
export function createLoopInstruments(meter: Meter): LoopInstruments {
  const made: Record<string, Counter | Histogram> = {};
  for (const [key, spec] of Object.entries(LOOP_INSTRUMENTS) as [Names, LoopInstrumentSpec][]) {
    const options = { description: spec.description, unit: spec.unit };
    made[key] =
      spec.kind === "counter"
        ? meter.createCounter(spec.name, options)
        : meter.createHistogram(spec.name, { ...options, advice: { explicitBucketBoundaries: [...(spec.buckets ?? [])] } });
  }
  return made as LoopInstruments;
}

/**
 * Records one loop measurement on one meter's instruments: the single mapping from a `Metric`
 * to instrument values and attributes. Durations are recorded in seconds; a failed LLM call has
 * no usage, so it adds no token series; a run counts only when it failed.
 */
export function recordLoopMetric(instruments: LoopInstruments, m: Metric): void {
  if (m.event === "llm") {
    instruments.llmRequests.add(1, { model: m.model, status: m.status });
    if (m.status === "ok") {
      instruments.llmTokens.add(m.promptTokens, { type: "prompt" });
      instruments.llmTokens.add(m.completionTokens, { type: "completion" });
    }
    instruments.llmDuration.record(m.ms / 1000, { model: m.model });
  } else if (m.event === "tool") {
    const attributes: Attributes = { tool: m.tool, source: m.source, is_error: m.isError, pending: m.pending === true };
    instruments.toolCalls.add(1, attributes);
    instruments.toolDuration.record(m.ms / 1000, { tool: m.tool });
  } else if (m.error !== undefined) {
    instruments.runErrors.add(1, { model: m.model });
  }
}
