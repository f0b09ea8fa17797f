import { SpanKind, type Attributes, type Histogram, type Meter } from "@opentelemetry/api";
import type { ScopeEvent } from "../../src/events/types.js";
import { GenAiProjection } from "./gen-ai.js";
import { timesPerOutputChunkOf, timeToFirstChunkOf } from "./gen-ai-llm.js";
import type { OpenSpan } from "./open-span.js";
import { scopeTypeOf } from "./scope-attributes.js";
import * as G from "./semconv.js";

/** The GenAI metrics of one conventions version, fed every scope start and end. */
export interface GenAiMetrics {
  onStart(start: ScopeEvent, us: number): void;
  /** `errorType`: the failed scope's `error.type`; undefined when it succeeded. */
  onEnd(end: ScopeEvent, us: number, errorType: string | undefined): void;
}

/** Bucket advice of the GenAI semantic conventions for the client histograms (seconds, tokens). */
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Attributes of a chat span the client metrics carry (gen_ai client metric attributes). */
export const METRIC_ATTRIBUTES = [
  G.GEN_AI_OPERATION_NAME,
  G.GEN_AI_PROVIDER_NAME,
  G.GEN_AI_REQUEST_MODEL,
  G.GEN_AI_RESPONSE_MODEL,
  G.SERVER_ADDRESS,
  G.SERVER_PORT,
];
/** Scopes waiting for their end; past this the oldest is forgotten (an end that never comes). */
export const MAX_OPEN_CALLS = 4096;

/** A span the projection fills but nothing exports: the metrics read its attributes. */
export function scratchSpan(start: ScopeEvent, startUs: number): OpenSpan {
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

/** `keys` of `from` that are set. */
export function pick(from: Attributes, keys: readonly string[]): Attributes {
  const out: Attributes = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/**
 * v1.41's GenAI client metrics of every `llm` scope: `gen_ai.client.operation.duration` in
 * seconds, `gen_ai.client.token.usage` per token type, and for streamed calls
 * `gen_ai.client.operation.time_to_first_chunk` and `time_per_output_chunk`.
 */
export class GenAiMetricsV141 implements GenAiMetrics {
  private readonly calls = new Map<string, OpenSpan>();
  private readonly genAi = new GenAiProjection("1.41");
  private readonly duration: Histogram;
  private readonly tokens: Histogram;
  private readonly firstChunk: Histogram;
  private readonly perChunk: Histogram;

  constructor(meter: Meter) {
    this.duration = meter.createHistogram(G.GEN_AI_CLIENT_OPERATION_DURATION, {
      unit: "s",
      description: "GenAI operation duration",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.tokens = meter.createHistogram(G.GEN_AI_CLIENT_TOKEN_USAGE, {
      unit: "{token}",
      description: "Number of input and output tokens used",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.firstChunk = meter.createHistogram(G.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK, {
      unit: "s",
      description: "Time to receive the first chunk of a streamed response",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.perChunk = meter.createHistogram(G.GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK, {
      unit: "s",
      description: "Time between consecutive output chunks of a streamed response, for each chunk after the first",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
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
    const attrs = pick(span.attributes, METRIC_ATTRIBUTES);
    if (errorType !== undefined) attrs[G.ERROR_TYPE] = errorType;
    this.duration.record(Math.max(0, us - span.startUs) / 1_000_000, attrs);
    // Streamed calls only: the runtime records the first chunk's time on the end event.
    const firstChunk = timeToFirstChunkOf(end);
    if (firstChunk !== undefined) this.firstChunk.record(firstChunk, attrs);
    for (const gap of timesPerOutputChunkOf(end)) this.perChunk.record(gap, attrs);
    const input = span.attributes[G.GEN_AI_USAGE_INPUT_TOKENS];
    const output = span.attributes[G.GEN_AI_USAGE_OUTPUT_TOKENS];
    if (typeof input === "number") this.tokens.record(input, { ...attrs, [G.GEN_AI_TOKEN_TYPE]: "input" });
    if (typeof output === "number") this.tokens.record(output, { ...attrs, [G.GEN_AI_TOKEN_TYPE]: "output" });
  }
}
