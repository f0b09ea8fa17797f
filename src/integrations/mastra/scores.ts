import type { JsonObject } from "../../events/json.js";
import { EVALUATION_EVENT, EVALUATION_SCHEMA } from "../../runtime/evaluation.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { DiagnosticCounter } from "../../wire/diagnostics.js";
import { currentScopeUuid } from "../detached-scopes.js";
import { dateOf } from "./span-fields.js";

/**
 * The `data` of an evaluation mark (`gen_ai.evaluation.result`, data schema `relaytrace.evaluation`,
 * the shape `runtime.recordEvaluation` records): one Mastra score, on the scope of the span it
 * scores (or of the trace's root span, for a score of the whole trace). The scorer's id, the
 * score's source and Mastra's trace and span ids are in the mark's metadata (`mastra.scorer_id`,
 * `mastra.score_source`, `mastra.trace_id`, `mastra.span_id`).
 */
export interface EvaluationData {
  /** The scorer's name (its id when it has none). */
  name: string;
  score: number;
  /** The scorer's reason, when it gave one. */
  explanation?: string;
}

/** The arguments of `addScoreToTrace`, Mastra's older score hook. */
export interface MastraTraceScore {
  traceId: string;
  spanId?: string;
  score: number;
  reason?: string;
  scorerName: string;
  metadata?: Record<string, unknown>;
}

/** One score, from a score event or `addScoreToTrace`. */
export interface MastraScore {
  traceId?: string;
  spanId?: string;
  name: string;
  scorerId?: string;
  score: number;
  reason?: string;
  source?: string;
  timestamp?: Date | string;
  metadata?: Record<string, unknown>;
}

/**
 * Records a score as an evaluation mark under `target` (the scored scope's uuid); a score whose
 * span and trace relaytrace never saw goes under the current scope and is counted as
 * `mastra.score_unmatched`.
 */
export function recordScore(runtime: Runtime, counter: DiagnosticCounter, score: MastraScore, target: string | undefined): void {
  if (target === undefined) {
    counter.record(
      "mastra.score_unmatched",
      `score ${score.name} names a span relaytrace does not know ` +
        `(trace ${score.traceId ?? "-"}, span ${score.spanId ?? "-"}): marked under the current scope`,
    );
  }
  const data: EvaluationData = { name: score.name, score: score.score };
  if (score.reason !== undefined && score.reason !== null) data.explanation = score.reason;
  const metadata: JsonObject = {};
  if (score.scorerId !== undefined) metadata["mastra.scorer_id"] = score.scorerId;
  if (score.source !== undefined) metadata["mastra.score_source"] = score.source;
  if (score.traceId !== undefined) metadata["mastra.trace_id"] = score.traceId;
  if (score.spanId !== undefined) metadata["mastra.span_id"] = score.spanId;
  if (score.metadata !== undefined) metadata["mastra.score_metadata"] = toJsonSafe(score.metadata);
  const timestamp = dateOf(score.timestamp);
  runtime.mark(EVALUATION_EVENT, {
    parent: { uuid: target ?? currentScopeUuid() },
    dataSchema: EVALUATION_SCHEMA,
    data: { ...data },
    metadata,
    ...(timestamp ? { timestamp } : {}),
  });
}
