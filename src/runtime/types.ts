import type { PricingCatalog } from "../wire/pricing.js";
import type { Clock } from "../events/clock.js";
import type { Json, JsonObject } from "../events/json.js";
import type { ScopeHandle } from "../events/scope-stack.js";
import type { AtofEvent, Category, DataSchema, LogSeverity } from "../events/types.js";
import type { Diagnostic } from "../wire/diagnostics.js";
import type { Exporter } from "./exporter.js";
import type { PromptRef } from "./prompt.js";

export type { ScopeHandle };

/**
 * A tool's outcome, the one shape every layer speaks: what a tool callback returns, what an
 * execution intercept returns, what a continuation (`next`) and `executeTool` resolve to.
 * `pendingMarks` are emitted (parented to the tool, after its end) and never reach the caller:
 * continuations and `executeTool` resolve to the outcome without them.
 */
export interface ToolExecutionResult<T extends Json = Json> {
  result: T;
  /** Opaque metadata next to the result; `null` and absent are the same. */
  annotation?: Json;
  /** Marks the tool's lifecycle emits after the successful end (innermost layer's first). */
  pendingMarks?: PendingMarkSpec[];
  /**
   * A suspension: the request someone must answer before the call can complete. The tool scope
   * ends (OK) with `{pending: request}` in its annotation, and the runtime emits the
   * `tool.pending` mark (data = the request) parented to it.
   */
  pending?: JsonObject;
}

/** What an execution intercept returns: the same outcome shape (the name is kept for the intercept's signature). */
export type ToolExecutionInterceptOutcome<T extends Json = Json> = ToolExecutionResult<T>;

/** A mark to emit after the tool ends successfully. Keys are camelCase; `categoryProfile` inner keys are wire data. */
export interface PendingMarkSpec {
  name: string;
  category?: string | null;
  categoryProfile?: JsonObject | null;
  data?: Json;
  dataSchema?: DataSchema | null;
  metadata?: Json;
  severity?: LogSeverity;
}

export type Timestamp = number | Date | string;

export type { Diagnostic };

/** The exporter a subscription belongs to (the `Exporter` interface). */
export type ExporterLifecycle = Exporter;

export type Subscriber = (event: AtofEvent) => void | Promise<void>;

export interface SubscribeOptions {
  scope?: ScopeHandle;
  /** Reached by `runtime.forceFlush()` (its forceFlush) and `runtime.shutdown()` (forceFlush, then shutdown). */
  exporter?: Exporter;
}

export interface RegistrationOptions {
  /** Makes the registration scope-local: visible to that scope and its descendants, removed when it pops. */
  scope?: ScopeHandle;
}

export interface RequestInterceptOptions extends RegistrationOptions {
  breakChain?: boolean;
}

/** Removes a registration; returns whether something was removed. */
export type Remover = () => boolean;

export interface ScopeOptions {
  category?: Category;
  attributes?: string[];
  input?: Json;
  metadata?: Json;
  categoryProfile?: JsonObject | null;
  parent?: ScopeHandle;
  timestamp?: Timestamp;
}

export interface PopScopeOptions {
  output?: Json;
  metadata?: Json;
  timestamp?: Timestamp;
}

export interface MarkOptions {
  parent?: ScopeHandle | { uuid: string };
  category?: string | null;
  categoryProfile?: JsonObject | null;
  data?: Json;
  dataSchema?: DataSchema | null;
  metadata?: Json;
  severity?: LogSeverity;
  timestamp?: Timestamp;
}

export interface ToolContext {
  signal: AbortSignal;
  toolUuid: string;
  toolCallId?: string;
}

export type ToolFunction<T extends Json = Json> = (
  args: Json,
  ctx: ToolContext,
) => ToolExecutionResult<T> | Promise<ToolExecutionResult<T>>;

export interface ToolOptions {
  toolCallId?: string;
  attributes?: string[];
  metadata?: Json;
  /** Fallback end `data` when the result sanitizes to null, and the error end's data. */
  data?: Json;
  parent?: ScopeHandle | { uuid: string };
  signal?: AbortSignal;
  timestamp?: Timestamp;
}

/** A tool call that has started and not ended. */
export interface ToolHandle {
  readonly uuid: string;
  readonly name: string;
  readonly parentUuid: string | null;
  readonly toolCallId?: string;
  readonly startedAtUs: number;
  readonly attributes: readonly string[];
  readonly metadata: Json;
}

export interface EndToolOptions {
  data?: Json;
  metadata?: Json;
  timestamp?: Timestamp;
}

/**
 * An LLM request: its headers and its body. `content` is JSON, or any value a provider SDK takes
 * as its request (its own request types included): the events record a JSON copy of it.
 */
export interface LlmRequest<C = Json> {
  headers?: Record<string, Json>;
  content: C;
}

export interface LlmOptions {
  modelName?: string;
  /** The prompt template the request was made from (`{ name, version?, template?, variables? }`), recorded on the start. */
  prompt?: PromptRef;
  /** the provider dialect of the request and response (`openai/chat-completions`…), written as the events' `data_schema` */
  dataSchema?: DataSchema;
  attributes?: string[];
  metadata?: Json;
  parent?: ScopeHandle | { uuid: string };
  signal?: AbortSignal;
  timestamp?: Timestamp;
}

export interface LlmHandle {
  readonly uuid: string;
  readonly name: string;
  readonly parentUuid: string | null;
  readonly modelName?: string;
  readonly dataSchema?: DataSchema;
  readonly startedAtUs: number;
  readonly attributes: readonly string[];
  readonly metadata: Json;
}

export interface EndLlmOptions {
  data?: Json;
  metadata?: Json;
  modelName?: string;
  timestamp?: Timestamp;
}

/**
 * The provider call of a managed LLM call: gets the real request (the `traceparent` added) and
 * returns the reply, or a promise of it. `executeLlm` resolves with what it returns, typed as it
 * is; the `llm` end records a JSON copy of it.
 */
export type LlmFunction<T = Json, C = Json> = (request: LlmRequest<C>, ctx: { signal: AbortSignal; llmUuid: string }) => T | PromiseLike<T>;

export interface ToolExecutionInfo {
  tool: string;
  toolCallId?: string;
  toolUuid: string;
}

export type ToolNext = (args: Json) => Promise<ToolExecutionResult>;
export type ToolExecutionIntercept = (
  args: Json,
  next: ToolNext,
  info: ToolExecutionInfo,
) => ToolExecutionInterceptOutcome | Promise<ToolExecutionInterceptOutcome>;

export interface EventFields {
  data: Json;
  categoryProfile: JsonObject | null;
  metadata: Json;
}

/**
 * Returns the event's new `data`, `categoryProfile` and `metadata`. The result replaces all three:
 * a field left out is cleared, so return `{ ...fields, data: … }` to change one and keep the others.
 */
export type EventSanitizer = (event: AtofEvent, fields: EventFields) => Partial<EventFields>;
/** Returns the name the event is delivered under (scope starts and ends, marks). */
export type EventNameSanitizer = (name: string, event: AtofEvent) => string;
export type MetadataInjector = (event: AtofEvent) => Record<string, string | number | boolean | string[] | number[] | boolean[]>;

/**
 * Where work continues a trace: the trace root (absent: a new trace starts) and the parent.
 * On the wire (`propagationContextToJson`) it is `{"version":1,"root_uuid":…,"parent_uuid":…}`.
 */
export interface PropagationContext {
  version: 1;
  rootUuid?: string;
  parentUuid: string;
  /**
   * The remote parent's W3C trace flags (sampled = 1) and `tracestate`, when the context came
   * from one (`extractTraceContext`). Absent: sampled, no trace state. Only rooted contexts use them.
   */
  traceFlags?: number;
  tracestate?: string;
}

/** The wire object of a propagation context, as NeMo Relay reads and writes it. */
export interface PropagationContextWire {
  version: 1;
  root_uuid?: string;
  parent_uuid: string;
  /** Written only when set, so a context without them is NeMo Relay's text exactly. */
  trace_flags?: number;
  tracestate?: string;
}

export interface ShutdownOptions {
  /** One deadline for the whole shutdown, in ms (default 5,000). */
  timeoutMs?: number;
}

export interface RuntimeOptions {
  clock?: Clock;
  idGenerator?: () => string;
  /** Publications waiting for delivery before new ones are dropped (default 10,000). */
  maxQueueSize?: number;
  /** Private attribute/metadata namespace (default `nemo_relay`). */
  namespace?: string;
  /** Called for each counted problem (with its running count); a throwing listener is ignored. */
  onDiagnostic?: (d: Diagnostic) => void;
  /**
   * Header names whose values `llm` events may record, added to the default allow-list
   * (`RECORDED_HEADERS`). Every other request header is recorded as `[redacted]`.
   */
  recordedHeaders?: readonly string[];
  /**
   * Prices for `llm` ends. Unset: the bundled `@pydantic/genai-prices` table prices every call
   * whose model and usage are known (offline, loaded at the first priced call). A catalog
   * `{entries: [{model, inputPerMTok, outputPerMTok, cacheReadPerMTok?, cacheWritePerMTok?,
   * pricingAsOf?, pricingSource?}]}` (USD per million tokens), or the path of a JSON file holding
   * one, overrides the table for its models. `false`: no cost at all.
   */
  pricing?: PricingCatalog | string | false;
  /**
   * Tail sampling, one decision per trace: the events under each root are held until it ends,
   * then delivered whole to every subscriber and exporter or dropped whole (docs/production.md).
   * Unset: every event is delivered as it comes, nothing held.
   */
  sampling?: SamplingOptions;
}

/** Which traces `createRuntime({ sampling })` keeps: any matching `keep` rule, else the ratio. */
export interface SamplingOptions {
  /** The share of the other traces kept, from 0 to 1 (default 1), decided from the trace id alone. */
  ratio?: number;
  /** Traces kept whatever the ratio: any rule that matches keeps the trace. */
  keep?: SamplingKeepRules;
  /** `ratio` for traces whose root has this name (an agent's name), from 0 to 1 each. */
  ratioByAgent?: Record<string, number>;
  /**
   * Bytes the held events of all open traces may take (estimated, default 64 MiB). Past it a trace
   * holding more by itself, then the oldest open traces, are decided with what is known of them
   * so far; their later events follow.
   */
  maxBufferedBytes?: number;
}

export interface SamplingKeepRules {
  /** Keep a trace with an error anywhere in it (an end with status ERROR, an error-severity mark). */
  errors?: boolean;
  /** Keep a trace with a suspended tool call in it, or that resumes one. */
  suspended?: boolean;
  /** Keep a trace whose root took longer than this many milliseconds. */
  slowerThanMs?: number;
  /** Keep a trace whose LLM calls cost more than this many US dollars in all (priced ends only). */
  costAboveUsd?: number;
}
