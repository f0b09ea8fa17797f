// relaytrace — the runtime and the agent loop. Exporters live in "relaytrace/exporters",
// test helpers in "relaytrace/testing".

// Event vocabulary (ATOF 0.1)
export type { Json, JsonObject } from "./events/json.js";
export type { AtofEvent, Category, DataSchema, LogSeverity, MarkEvent, ScopeEvent } from "./events/types.js";
export { ATOF_VERSION, CATEGORIES } from "./events/types.js";
export type { Clock } from "./events/clock.js";
export { systemClock, MonotonicClock } from "./events/clock.js";
export { formatTimestamp, parseTimestamp } from "./events/timestamp.js";
export { uuidv7, spanIdOf } from "./events/uuid.js";
export type { ScopeHandle } from "./events/scope-stack.js";
export type { RunContext } from "./events/run-context.js";
export type { Evaluation, SpanIds } from "./runtime/evaluation.js";
export type { PromptRef } from "./runtime/prompt.js";
export { serializeEvent } from "./events/atof-serialize.js";
export { parseAtofLine } from "./events/atof-parse.js";
export { DEFAULT_MAX_LINE_BYTES, parseAtof, readAtofFile, streamAtofFile, TORN_LAST_LINE } from "./events/atof-reader.js";
export type { AtofReadResult, ParseAtofOptions, StreamAtofOptions } from "./events/atof-reader.js";
export { AtofParseError, UnsupportedAtofVersion } from "./events/atof-errors.js";
export type { AtofWarning } from "./events/atof-errors.js";

// Runtime
export { createRuntime, Runtime } from "./runtime/runtime.js";
export type { ScopeControl } from "./runtime/runtime.js";
export type { Exporter, ExporterHost } from "./runtime/exporter.js";
export { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "./runtime/shutdown.js";
export { DiagnosticCounter } from "./wire/diagnostics.js";
export { DEFAULT_NAMESPACE, METRIC_SCHEMA, PENDING_REQUEST_SCHEMA, TOOL_PENDING_MARK } from "./events/wire-names.js";
export { defaultRuntime, setDefaultRuntime } from "./runtime/default-runtime.js";
export { RelaytraceError, GuardrailRejectedError } from "./runtime/errors.js";
export type { RelaytraceErrorCode } from "./runtime/errors.js";
export { recordableRequest } from "./runtime/llm-lifecycle.js";
export { HeaderPolicy, RECORDED_HEADERS, REDACTED } from "./wire/credentials.js";
export { redactUrl } from "./wire/urls.js";
export type { ExecuteLlmOptions } from "./runtime/llm-lifecycle.js";
export { toolResult, withAnnotation, withoutAnnotation, withPendingMark, toExecutionResult } from "./runtime/outcome.js";
export {
  capturePropagationContext,
  propagationContextFromJson,
  propagationContextToJson,
  propagationContextToTraceparent,
} from "./runtime/propagation.js";
export { extractTraceContext, injectTraceContext } from "./runtime/otel-context.js";
export type { MetricKind, MetricMeasurement, MetricValueType } from "./runtime/metric.js";
export { toJsonSafe, CIRCULAR_MARKER, DEPTH_MARKER, MAX_JSON_DEPTH, UNREADABLE_MARKER } from "./runtime/json-safe.js";
export type {
  Diagnostic,
  EndLlmOptions,
  EndToolOptions,
  EventFields,
  EventNameSanitizer,
  EventSanitizer,
  ExporterLifecycle,
  LlmFunction,
  LlmHandle,
  LlmOptions,
  LlmRequest,
  MarkOptions,
  MetadataInjector,
  PendingMarkSpec,
  PopScopeOptions,
  PropagationContext,
  PropagationContextWire,
  RegistrationOptions,
  Remover,
  RequestInterceptOptions,
  RuntimeOptions,
  SamplingKeepRules,
  SamplingOptions,
  ScopeOptions,
  ShutdownOptions,
  SubscribeOptions,
  Subscriber,
  Timestamp,
  ToolExecutionInfo,
  ToolExecutionIntercept,
  ToolExecutionInterceptOutcome,
  ToolExecutionResult,
  ToolFunction,
  ToolHandle,
  ToolNext,
  ToolOptions,
} from "./runtime/types.js";
export type { ToolContext as ManagedToolContext } from "./runtime/types.js";
export type { Dialect, PricingCatalog, PricingEntry } from "./wire/index.js";

// Agent loop
export {
  createClient,
  Client,
  createToolkit,
  Toolkit,
  BUILTIN_TOOL_NAMES,
  defineTool,
  pending,
  pendingOf,
  authRequired,
  isRequest,
  relayTool,
  isRelayRequest,
  relayCallsOf,
  relayAnswer,
  RELAY_KIND,
  RELAY_OUTPUT_KEY,
  RELAY_IS_ERROR_KEY,
  InMemoryConversationStore,
  chainHooks,
  listSkills,
  codecFor,
  ProviderError,
  ProviderHttpError,
  ProviderResponseError,
  ProviderConnectionError,
  ProviderTimeoutError,
} from "./agent/index.js";
export type {
  AbandonOptions,
  AfterLlmEvent,
  AfterToolEvent,
  Answer,
  AskOptions,
  AskResumeOptions,
  BeforeLlmEvent,
  BeforeToolEvent,
  ClientOptions,
  ConversationStore,
  HaltRecord,
  Hooks,
  LlmErrorInfo,
  BodyTransform,
  Metric,
  ProviderStyle,
  RelayCall,
  RelayResult,
  Request,
  ResumeOptions,
  RunOptions,
  RunResult,
  RunStatus,
  RunUsage,
  StreamEvent,
  StreamOptions,
  BuiltinName,
  SkillInfo,
  SkillInventory,
  ToolArgs,
  StandardSchemaLike,
  Tool,
  ToolCallRecord,
  ToolContext,
  ToolDeclaration,
  ToolDefinition,
  ToolkitOptions,
  ToolOutcome,
  ToolResult,
  ToolReturn,
  ToolSource,
  TranslateOptions,
  TranslateResult,
  Usage,
} from "./agent/index.js";

// Ready-made sanitizers
export { redactPII, PII_KINDS, DROPPED, maskToken } from "./redact/index.js";
export type { PiiKind, PiiRedactor, RedactPiiOptions, RedactionMode, RedactionTarget } from "./redact/index.js";

// Comparing two recorded runs
export { diffRuns } from "./diff/index.js";
export type { RunChange, RunChangeKind, RunDiff, StepCall } from "./diff/index.js";
