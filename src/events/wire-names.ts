// Names that appear on the wire (ATOF events, metadata keys, schema names). Every layer that
// writes or reads one of them imports it from here, so a name is spelled in one place.

import type { DataSchema } from "./types.js";

/** The attribute and metadata namespace when none is configured (NeMo Relay's). */
export const DEFAULT_NAMESPACE = "nemo_relay";

// ---- keys inside `category_profile` --------------------------------------------------------

export const PROFILE_TOOL_CALL_ID = "tool_call_id";
export const PROFILE_TOOL_RESULT_ANNOTATION = "tool_result_annotation";
/** The prompt template an `llm` call was made from (`{name, version?, template?, variables?}`), on its start. */
export const PROFILE_PROMPT = "prompt";
export const PROFILE_MODEL_NAME = "model_name";
export const PROFILE_SUBTYPE = "subtype";
export const PROFILE_ANNOTATED_REQUEST = "annotated_request";
export const PROFILE_ANNOTATED_RESPONSE = "annotated_response";
/**
 * On priced `llm` ends: `{total, currency, input?, output?, cache_read?, cache_write?, model, provider?,
 * pricing_as_of?, pricing_source?}` (USD; from the app's catalog, the bundled table, or the reply's own cost).
 */
export const PROFILE_COST = "cost";
/**
 * On the end of an `agent` scope and of a trace's outermost scope: the cost of the `llm` calls inside it,
 * `{total, currency, priced_calls, unpriced_calls}` (present when at least one call was priced).
 */
export const PROFILE_TOTAL_COST = "total_cost";
/**
 * Beside it: their token usage, `{input_tokens, output_tokens, cache_read_tokens?, cache_write_tokens?,
 * reasoning_tokens?, calls}` (the calls that reported usage).
 */
export const PROFILE_TOTAL_USAGE = "total_usage";

// ---- metadata keys ---------------------------------------------------------------------------

export const META_STATUS_CODE = "otel.status_code";
export const META_STATUS_DESCRIPTION = "otel.status_description";
export const META_ERROR_TYPE = "error.type";
export const META_EXCEPTION_TYPE = "exception.type";
/** On a resumed run's agent scope: the id of the pending request it answers. */
export const META_RESUME_OF = "relaytrace.resume_of";
/** On a managed stream's `llm` end: milliseconds from the start to the first chunk. */
export const META_TIME_TO_FIRST_CHUNK_MS = "time_to_first_chunk_ms";
/** On a managed stream's `llm` end: milliseconds between each chunk and the one before it (one entry per chunk after the first). */
export const META_TIME_PER_OUTPUT_CHUNK_MS = "time_per_output_chunk_ms";
/** Gaps past the first `ChunkTiming.MAX_GAPS` of a long stream: counted, not listed. */
export const META_TIME_PER_OUTPUT_CHUNK_OMITTED = "time_per_output_chunk_omitted";
/** `llm` end metadata of a stream that stopped before its terminal event: why (the data is what had arrived). */
export const META_STREAM_INCOMPLETE = "relaytrace.stream_incomplete";
/** On a tool call re-executed with an answer: the uuid of the suspended call. */
export const META_RETRY_OF = "relaytrace.retry_of";

/** `<ns>.log.severity`, where a mark's severity is written. */
export function severityKey(namespace: string): string {
  return `${namespace}.log.severity`;
}

// ---- schemas ---------------------------------------------------------------------------------

/** `data_schema` of metric marks (`runtime.metric`). */
export const METRIC_SCHEMA: DataSchema = Object.freeze({ name: "nemo.relay.metric_measurements", version: "1" });
/** `data_schema` of the `tool.pending` mark: its data is the pending request. */
export const PENDING_REQUEST_SCHEMA: DataSchema = Object.freeze({ name: "relaytrace.pending_request", version: "1" });

// ---- suspension ------------------------------------------------------------------------------

/** The mark a suspended tool call ends with, parented to its tool scope. */
export const TOOL_PENDING_MARK = "tool.pending";
/** The mark recording an answer to a suspended call. */
export const TOOL_ANSWER_MARK = "tool.answer";
/** The key of a suspended call's annotation (`{pending: Request}`). */
export const ANNOTATION_PENDING = "pending";

// ---- reserved mark names and guardrail kinds -------------------------------------------------

export const MARK_SESSION_START = "session.start";
export const MARK_LLM_CHUNK = "llm.chunk";
export const MARK_COMPACTION = "compaction";
export const MARK_SKILL_LOAD = "skill.load";

export const GUARDRAIL_KIND_TOOL = "tool_conditional_execution";
export const GUARDRAIL_KIND_LLM = "llm_conditional_execution";

/** ATOF metadata keys of the run context (`withContext`): the ATOF spec reserves `session_id` and `user_id`. */
export const META_SESSION_ID = "session_id";
export const META_USER_ID = "user_id";
export const META_TAGS = "tags";

/** The data schema name of an evaluation mark (`runtime.recordEvaluation`), and its mark name: the GenAI conventions' event. */
export const SCHEMA_EVALUATION = "relaytrace.evaluation";
export const MARK_EVALUATION = "gen_ai.evaluation.result";
