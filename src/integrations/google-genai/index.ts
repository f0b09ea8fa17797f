// relaytrace/google-genai — model requests made with the Google Gen AI SDK (`@google/genai` 3,
// an optional peer dependency) recorded as llm scopes: see docs/adapters.md.
export { traceGoogleGenAI } from "./trace-google-genai.js";
export type { TraceGoogleGenAIOptions } from "./trace-google-genai.js";
