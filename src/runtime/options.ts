import { check, declareOptions, is } from "../events/option-spec.js";
import type { ExecuteLlmOptions } from "./llm-lifecycle.js";
import type { ExecuteLlmStreamOptions } from "./llm-stream.js";
import type {
  EndLlmOptions,
  EndToolOptions,
  MarkOptions,
  PopScopeOptions,
  RequestInterceptOptions,
  RuntimeOptions,
  SamplingKeepRules,
  SamplingOptions,
  ScopeOptions,
  ShutdownOptions,
  SubscribeOptions,
  ToolOptions,
} from "./types.js";

// Every options object of the runtime, declared once: the key list, the type checks and the
// messages derive from these (a misspelt or snake_case key is an error at the call instead of
// silently lost data: `tool_call_id` would otherwise drop the call id). Each declaration is typed
// against its options interface, so a key added to one and not the other does not compile.

const isRatio = (v: unknown): boolean => typeof v === "number" && v >= 0 && v <= 1;

const SAMPLING_KEEP_OPTIONS = declareOptions<SamplingKeepRules>(
  "createRuntime",
  {
    errors: is.boolean,
    suspended: is.boolean,
    slowerThanMs: is.nonNegativeNumber,
    costAboveUsd: is.nonNegativeNumber,
  },
  { prefix: "sampling.keep." },
);

export const SAMPLING_OPTIONS = declareOptions<SamplingOptions>(
  "createRuntime",
  {
    ratio: check("a number from 0 to 1", isRatio),
    keep: is.nested(SAMPLING_KEEP_OPTIONS),
    ratioByAgent: check(
      "an object of numbers from 0 to 1 (root name → ratio)",
      (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isRatio),
    ),
    maxBufferedBytes: is.positiveInteger,
  },
  { prefix: "sampling." },
);

export const RUNTIME_OPTIONS = declareOptions<RuntimeOptions>("createRuntime", {
  clock: is.object,
  idGenerator: is.function,
  maxQueueSize: is.positiveInteger,
  namespace: is.nonEmptyString,
  onDiagnostic: is.function,
  pricing: is.either(is.either(is.object, is.string), is.oneOf(false)),
  recordedHeaders: is.stringList,
  sampling: is.nested(SAMPLING_OPTIONS),
});

export const SCOPE_OPTIONS = declareOptions<ScopeOptions>("withScope", {
  category: is.string,
  attributes: is.stringList,
  input: is.anything,
  metadata: is.anything,
  categoryProfile: is.objectOrNull,
  parent: is.handle,
  timestamp: is.timestamp,
});

export const POP_OPTIONS = declareOptions<PopScopeOptions>("popScope", {
  output: is.anything,
  metadata: is.anything,
  timestamp: is.timestamp,
});

export const MARK_OPTIONS = declareOptions<MarkOptions>("mark", {
  parent: is.handle,
  category: is.either(is.string, is.oneOf(null)),
  categoryProfile: is.objectOrNull,
  data: is.anything,
  dataSchema: is.either(is.dataSchema, is.oneOf(null)),
  metadata: is.anything,
  severity: is.oneOf("trace", "debug", "info", "warn", "warning", "error"),
  timestamp: is.timestamp,
});

export const METRIC_OPTIONS = declareOptions<Pick<MarkOptions, "parent" | "metadata" | "timestamp">>("metric", {
  parent: is.handle,
  metadata: is.anything,
  timestamp: is.timestamp,
});

export const TOOL_OPTIONS = declareOptions<ToolOptions>("executeTool", {
  toolCallId: is.string,
  attributes: is.stringList,
  metadata: is.anything,
  data: is.anything,
  parent: is.handle,
  signal: is.signal,
  timestamp: is.timestamp,
});

export const END_TOOL_OPTIONS = declareOptions<EndToolOptions>("endTool", {
  data: is.anything,
  metadata: is.anything,
  timestamp: is.timestamp,
});

const LLM_SPEC = {
  modelName: is.string,
  prompt: is.anything, // checked whole by promptProfile, which names the field
  dataSchema: is.dataSchema,
  attributes: is.stringList,
  metadata: is.anything,
  parent: is.handle,
  signal: is.signal,
  timestamp: is.timestamp,
  injectTraceparent: is.boolean,
} as const;

export const LLM_OPTIONS = declareOptions<ExecuteLlmOptions>("executeLlm", LLM_SPEC);

export const LLM_STREAM_OPTIONS = declareOptions<ExecuteLlmStreamOptions<unknown>>("executeLlmStream", {
  ...LLM_SPEC,
  assemble: is.either(is.function, is.oneOf("chunks")),
});

export const END_LLM_OPTIONS = declareOptions<EndLlmOptions & { error?: unknown }>("endLlm", {
  data: is.anything,
  metadata: is.anything,
  modelName: is.string,
  timestamp: is.timestamp,
  error: is.anything,
});

export const SHUTDOWN_OPTIONS = declareOptions<ShutdownOptions>("shutdown", { timeoutMs: is.nonNegativeNumber });

export const REGISTRATION_OPTIONS = declareOptions<RequestInterceptOptions>("register", { scope: is.handle, breakChain: is.boolean });

export const SUBSCRIBE_OPTIONS = declareOptions<SubscribeOptions>("subscribe", { scope: is.handle, exporter: is.object });
