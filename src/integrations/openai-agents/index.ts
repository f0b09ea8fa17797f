// relaytrace/openai-agents — a tracing processor for the OpenAI Agents SDK (`@openai/agents-core` 0.14 to 0.20).
export { RelaytraceProcessor } from "./processor.js";
export type { RelaytraceProcessorOptions } from "./processor.js";
