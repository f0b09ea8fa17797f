/**
 * semantic-conventions-genai v0.1.0: the names the `gen_ai` projection writes when
 * `OTEL_SEMCONV_STABILITY_OPT_IN` contains `gen_ai_latest_experimental`, where they differ from
 * v1.41 or are new. Every other name is the same in both versions and comes from semconv.ts.
 * Kept locally: `@opentelemetry/semantic-conventions` marks the GenAI names moved and has none
 * of these.
 */

/** Renamed from v1.41's `gen_ai.usage.cache_creation.input_tokens`. */
export const GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS = "gen_ai.usage.cache_write.input_tokens";
/** The usage counters' dimension; relaytrace's usage has no per-modality split, so always `unknown`. */
export const GEN_AI_TOKEN_MODALITY = "gen_ai.token.modality";
export const TOKEN_MODALITY_UNKNOWN = "unknown";

/** The log record of a failed inference call (v1.41: `gen_ai.client.operation.exception`). */
export const GEN_AI_CLIENT_INFERENCE_EXCEPTION = "gen_ai.client.inference.exception";

/** Inference metrics (v1.41: `gen_ai.client.operation.*` and `gen_ai.client.token.usage`). */
export const GEN_AI_CLIENT_INFERENCE_DURATION = "gen_ai.client.inference.duration";
export const GEN_AI_CLIENT_INFERENCE_TIME_TO_FIRST_CHUNK = "gen_ai.client.inference.time_to_first_chunk";
export const GEN_AI_CLIENT_INFERENCE_TIME_PER_OUTPUT_CHUNK = "gen_ai.client.inference.time_per_output_chunk";
export const GEN_AI_CLIENT_INFERENCE_USAGE_INPUT_TOKENS = "gen_ai.client.inference.usage.input_tokens";
export const GEN_AI_CLIENT_INFERENCE_USAGE_OUTPUT_TOKENS = "gen_ai.client.inference.usage.output_tokens";
export const GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.client.inference.usage.cache_read.input_tokens";
export const GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_WRITE_INPUT_TOKENS = "gen_ai.client.inference.usage.cache_write.input_tokens";
export const GEN_AI_CLIENT_INFERENCE_USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.client.inference.usage.reasoning.output_tokens";
export const GEN_AI_CLIENT_INFERENCE_OPERATION_INPUT_TOKENS = "gen_ai.client.inference.operation.input_tokens";
export const GEN_AI_CLIENT_INFERENCE_OPERATION_OUTPUT_TOKENS = "gen_ai.client.inference.operation.output_tokens";

/** Agent and tool metrics (new in v0.1.0); workflows are recorded on the agent ones. */
export const GEN_AI_INVOKE_AGENT_DURATION = "gen_ai.invoke_agent.duration";
export const GEN_AI_INVOKE_AGENT_INFERENCE_CALLS = "gen_ai.invoke_agent.inference_calls";
export const GEN_AI_INVOKE_AGENT_TOOL_CALLS = "gen_ai.invoke_agent.tool_calls";
export const GEN_AI_EXECUTE_TOOL_DURATION = "gen_ai.execute_tool.duration";
