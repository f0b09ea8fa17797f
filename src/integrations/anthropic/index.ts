// relaytrace/anthropic — calls made with the Anthropic SDK (`@anthropic-ai/sdk` 1, an optional
// peer dependency) recorded as llm scopes: see docs/adapters.md.
export { traceAnthropic } from "./trace-anthropic.js";
export type { TraceAnthropicOptions } from "./trace-anthropic.js";
