// The OpenInference semantic conventions the openinference projection writes: attribute names,
// span kinds and MIME types, under the names `@arizeai/openinference-semantic-conventions` gives
// them. Our own table (the package's build brings 25 KiB of every name into a Worker bundle);
// test/otel/openinference-conventions.test.ts holds each value equal to the package's.

export const SemanticConventions = {
  INPUT_MIME_TYPE: "input.mime_type",
  INPUT_VALUE: "input.value",
  LLM_COST_COMPLETION: "llm.cost.completion",
  LLM_COST_PROMPT: "llm.cost.prompt",
  LLM_COST_PROMPT_DETAILS_CACHE_READ: "llm.cost.prompt_details.cache_read",
  LLM_COST_PROMPT_DETAILS_CACHE_WRITE: "llm.cost.prompt_details.cache_write",
  LLM_COST_TOTAL: "llm.cost.total",
  LLM_FINISH_REASON: "llm.finish_reason",
  LLM_INPUT_MESSAGES: "llm.input_messages",
  LLM_INVOCATION_PARAMETERS: "llm.invocation_parameters",
  LLM_MODEL_NAME: "llm.model_name",
  LLM_OUTPUT_MESSAGES: "llm.output_messages",
  LLM_PROVIDER: "llm.provider",
  LLM_SYSTEM: "llm.system",
  LLM_TOKEN_COUNT_COMPLETION: "llm.token_count.completion",
  LLM_TOKEN_COUNT_PROMPT: "llm.token_count.prompt",
  LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ: "llm.token_count.prompt_details.cache_read",
  LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_WRITE: "llm.token_count.prompt_details.cache_write",
  LLM_TOKEN_COUNT_TOTAL: "llm.token_count.total",
  LLM_TOOLS: "llm.tools",
  MESSAGE_CONTENT: "message.content",
  MESSAGE_ROLE: "message.role",
  MESSAGE_TOOL_CALLS: "message.tool_calls",
  MESSAGE_TOOL_CALL_ID: "message.tool_call_id",
  METADATA: "metadata",
  OPENINFERENCE_SPAN_KIND: "openinference.span.kind",
  OUTPUT_MIME_TYPE: "output.mime_type",
  OUTPUT_VALUE: "output.value",
  TOOL_CALL_FUNCTION_ARGUMENTS_JSON: "tool_call.function.arguments",
  TOOL_CALL_FUNCTION_NAME: "tool_call.function.name",
  TOOL_CALL_ID: "tool_call.id",
  TOOL_JSON_SCHEMA: "tool.json_schema",
  TOOL_NAME: "tool.name",
  TOOL_PARAMETERS: "tool.parameters",
} as const;

/** The values of `openinference.span.kind`. */
export const OpenInferenceSpanKind = {
  LLM: "LLM",
  CHAIN: "CHAIN",
  TOOL: "TOOL",
  RETRIEVER: "RETRIEVER",
  RERANKER: "RERANKER",
  EMBEDDING: "EMBEDDING",
  AGENT: "AGENT",
  GUARDRAIL: "GUARDRAIL",
  EVALUATOR: "EVALUATOR",
  PROMPT: "PROMPT",
} as const;
export type OpenInferenceSpanKind = (typeof OpenInferenceSpanKind)[keyof typeof OpenInferenceSpanKind];

/** The values of `input.mime_type` and `output.mime_type` the projection writes. */
export const MimeType = {
  TEXT: "text/plain",
  JSON: "application/json",
} as const;
