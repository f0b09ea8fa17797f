// relaytrace/openai — calls made with the OpenAI SDK (`openai` 7, an optional peer dependency)
// recorded as llm scopes: see docs/adapters.md.
export { traceOpenAI } from "./trace-openai.js";
export type { TraceOpenAIOptions } from "./trace-openai.js";
