/**
 * OTel GenAI semantic-convention attribute names (v1.41) used by the `gen_ai` projection.
 * Kept locally because the npm `@opentelemetry/semantic-conventions` GenAI exports are
 * incubating/deprecated and move between releases.
 */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const GEN_AI_AGENT_NAME = "gen_ai.agent.name";
export const GEN_AI_AGENT_DESCRIPTION = "gen_ai.agent.description";
export const GEN_AI_AGENT_ID = "gen_ai.agent.id";
export const GEN_AI_AGENT_VERSION = "gen_ai.agent.version";
export const GEN_AI_WORKFLOW_NAME = "gen_ai.workflow.name";
export const GEN_AI_OUTPUT_TYPE = "gen_ai.output.type";
export const GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = "gen_ai.response.time_to_first_chunk";
export const GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
export const GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const GEN_AI_REQUEST_TEMPERATURE = "gen_ai.request.temperature";
export const GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
export const GEN_AI_REQUEST_TOP_P = "gen_ai.request.top_p";
export const GEN_AI_REQUEST_TOP_K = "gen_ai.request.top_k";
export const GEN_AI_REQUEST_STOP_SEQUENCES = "gen_ai.request.stop_sequences";
export const GEN_AI_REQUEST_FREQUENCY_PENALTY = "gen_ai.request.frequency_penalty";
export const GEN_AI_REQUEST_PRESENCE_PENALTY = "gen_ai.request.presence_penalty";
export const GEN_AI_REQUEST_SEED = "gen_ai.request.seed";
export const GEN_AI_REQUEST_CHOICE_COUNT = "gen_ai.request.choice.count";
export const GEN_AI_REQUEST_STREAM = "gen_ai.request.stream";
export const GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
export const GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
export const GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
export const GEN_AI_RESPONSE_ID = "gen_ai.response.id";
export const GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
export const GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens";
export const GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.usage.reasoning.output_tokens";
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
export const GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
export const GEN_AI_TOOL_DESCRIPTION = "gen_ai.tool.description";
export const GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
export const GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";
export const GEN_AI_TOOL_DEFINITIONS = "gen_ai.tool.definitions";
export const GEN_AI_DATA_SOURCE_ID = "gen_ai.data_source.id";
export const GEN_AI_RETRIEVAL_TOP_K = "gen_ai.retrieval.top_k";
export const SERVER_ADDRESS = "server.address";
export const SERVER_PORT = "server.port";
export const ERROR_TYPE = "error.type";
export const EXCEPTION_TYPE = "exception.type";
export const EXCEPTION_MESSAGE = "exception.message";
/** The event a failed GenAI client operation records (severity WARN). */
export const GEN_AI_CLIENT_OPERATION_EXCEPTION = "gen_ai.client.operation.exception";
/** `error.type` when an error end names no class. */
export const ERROR_TYPE_OTHER = "_OTHER";

/** The GenAI client metrics of v1.41 (semconv-genai-0.1.ts has v0.1.0's). */
export const GEN_AI_CLIENT_OPERATION_DURATION = "gen_ai.client.operation.duration";
export const GEN_AI_CLIENT_TOKEN_USAGE = "gen_ai.client.token.usage";
export const GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK = "gen_ai.client.operation.time_to_first_chunk";
export const GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK = "gen_ai.client.operation.time_per_output_chunk";
export const GEN_AI_TOKEN_TYPE = "gen_ai.token.type";

/** `gen_ai.operation.name` values. */
export const GenAiOperation = {
  invokeAgent: "invoke_agent",
  createAgent: "create_agent",
  invokeWorkflow: "invoke_workflow",
  chat: "chat",
  generateContent: "generate_content",
  textCompletion: "text_completion",
  executeTool: "execute_tool",
  embeddings: "embeddings",
  retrieval: "retrieval",
} as const;
