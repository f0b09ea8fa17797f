// relaytrace/langchain — a callback handler for LangChain.js (`@langchain/core` 1.x).
export { RelaytraceCallbackHandler } from "./callback-handler.js";
export type { RelaytraceCallbackHandlerOptions } from "./callback-handler.js";
