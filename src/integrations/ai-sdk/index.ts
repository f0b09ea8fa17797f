// relaytrace/ai-sdk — traces Vercel AI SDK (`ai` 6.x and 7.x) model calls, tools and runs.
export { relaytraceMiddleware } from "./middleware.js";
export type { RelaytraceMiddlewareOptions } from "./middleware.js";
export { traceTools } from "./tools.js";
export type { TraceToolsOptions } from "./tools.js";
export { traceAgent } from "./agent-scope.js";
export type { TraceAgentOptions } from "./agent-scope.js";
export { relaytraceTelemetry } from "./telemetry.js";
export type { RelaytraceTelemetryOptions } from "./telemetry.js";
export type {
  ModelCallEndEvent,
  ModelCallExecution,
  ModelCallStartEvent,
  RelaytraceTelemetry,
  RunAbortEvent,
  RunEndEvent,
  RunStartEvent,
  StepErrorEvent,
  TelemetryToolCall,
  TelemetryUsage,
  ToolEndEvent,
  ToolExecution,
  ToolStartEvent,
} from "./telemetry-events.js";
