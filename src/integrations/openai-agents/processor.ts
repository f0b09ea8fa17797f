import type { Span, SpanData, Trace, TracingProcessor } from "@openai/agents-core";
import type { JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { LlmHandle, ToolHandle } from "../../runtime/types.js";
import { CHAT_COMPLETIONS_SCHEMA, type CallToolCall } from "../chat-completions-body.js";
import { openaiResponsesCodec } from "../../wire/index.js";
import { closeDetached, currentScopeUuid, openDetached, type DetachedScope } from "../detached-scopes.js";
import { asError, parseJsonText } from "../json-text.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import {
  generationRequest,
  generationResponse,
  requestedToolCalls,
  responseModel,
  responseRequest,
  responseResponse,
} from "./span-bodies.js";
import { audioOpening, scopeClosing, stepName, stepOpening } from "./step-spans.js";

/** Options of `RelaytraceProcessor`. */
export type RelaytraceProcessorOptions = AdapterOptions;

const PROCESSOR_OPTIONS = declareAdapterOptions<RelaytraceProcessorOptions>("RelaytraceProcessor", {});

type AnySpan = Span<SpanData>;

/** The span data of the given span types. */
type SpanDataOf<T extends SpanData["type"]> = Extract<SpanData, { type: T }>;

/** Where a span opens: its parent's uuid and its start time. */
interface OpenAt {
  parentUuid: string;
  timestamp: string | Date;
}

type Opened =
  | { kind: "scope"; uuid: string; scope: DetachedScope }
  | { kind: "llm"; uuid: string; handle: LlmHandle }
  | { kind: "tool"; uuid: string; handle: ToolHandle }
  | { kind: "mark"; uuid: string };

interface TraceState {
  trace: Trace;
  /** When the trace started (a trace carries no time of its own). */
  startedAt: Date;
  /** The relaytrace scope the app was in when the trace started. */
  appParent: string;
  opened?: Opened;
  spans: Map<string, SpanState>;
  /** Tool calls the model asked for that no function span has claimed yet. */
  unclaimed: CallToolCall[];
}

interface SpanState {
  span: AnySpan;
  opened?: Opened;
  closed?: boolean;
}

/**
 * A tracing processor for `@openai/agents-core` (`addTraceProcessor` / `setTraceProcessors`):
 * each trace becomes a `function` scope, agent spans `agent` scopes, generation and response
 * spans `llm` scopes (bodies, usage, model), function spans `tool` scopes carrying the call id the
 * model gave, guardrail and custom spans scopes of those categories, handoffs marks, task, turn,
 * MCP listing and speech-group spans `function` scopes, transcription and speech spans `custom`
 * scopes (see step-spans.ts) — all with the spans' own start and end times and errors. A scope
 * opens when its span ends or a child needs it as parent, so what the library fills in while the
 * span runs is recorded.
 */
export class RelaytraceProcessor implements TracingProcessor {
  private readonly traces = new Map<string, TraceState>();
  private failures = 0;

  constructor(private readonly options: RelaytraceProcessorOptions = {}) {
    PROCESSOR_OPTIONS.check(options);
  }

  private get runtime(): Runtime {
    return runtimeOf(this.options);
  }

  /** How many library callbacks failed to become events (telemetry never throws into the run). */
  failureCount(): number {
    return this.failures;
  }

  async onTraceStart(trace: Trace): Promise<void> {
    this.guard(() => {
      this.traces.set(trace.traceId, { trace, startedAt: new Date(), appParent: currentScopeUuid(), spans: new Map(), unclaimed: [] });
    });
  }

  async onTraceEnd(trace: Trace): Promise<void> {
    this.guard(() => {
      const state = this.traces.get(trace.traceId);
      if (!state) return;
      this.traces.delete(trace.traceId);
      const opened = this.ensureTrace(state);
      if (opened.kind === "scope") closeDetached(this.runtime, opened.scope);
    });
  }

  async onSpanStart(span: AnySpan): Promise<void> {
    this.guard(() => {
      const state = this.traceOf(span);
      state.spans.set(span.spanId, { span });
    });
  }

  async onSpanEnd(span: AnySpan): Promise<void> {
    this.guard(() => {
      const state = this.traceOf(span);
      const entry = state.spans.get(span.spanId) ?? { span };
      const opened = this.ensureSpan(state, entry);
      this.close(state, entry.span, opened);
      entry.closed = true;
      // Ended spans stay known until the trace ends: a late child still finds its parent.
      entry.opened = opened;
    });
  }

  /**
   * Ends what the library left open (a run that throws inside `withTrace` never ends its trace),
   * innermost first, then flushes the runtime.
   */
  async shutdown(): Promise<void> {
    this.guard(() => {
      const unfinished = new Error("ended at shutdown: the library never ended it");
      for (const state of this.traces.values()) {
        const open = [...state.spans.values()].filter((e) => e.opened?.kind === "scope" && !e.closed).reverse();
        for (const entry of open) {
          if (entry.opened?.kind === "scope") closeDetached(this.runtime, entry.opened.scope, { error: unfinished });
          entry.closed = true;
        }
        if (state.opened?.kind === "scope") closeDetached(this.runtime, state.opened.scope, { error: unfinished });
      }
      this.traces.clear();
    });
    await this.runtime.flush();
  }

  async forceFlush(): Promise<void> {
    await this.runtime.flush();
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      this.failures++;
    }
  }

  /** The trace a span belongs to; a span whose trace never started gets one (under the app's scope). */
  private traceOf(span: AnySpan): TraceState {
    let state = this.traces.get(span.traceId);
    if (!state) {
      const orphan = { traceId: span.traceId, name: "trace", groupId: null, metadata: undefined } as unknown as Trace;
      state = {
        trace: orphan,
        startedAt: new Date(span.startedAt ?? Date.now()),
        appParent: currentScopeUuid(),
        spans: new Map(),
        unclaimed: [],
      };
      this.traces.set(span.traceId, state);
    }
    return state;
  }

  private ensureTrace(state: TraceState): Opened {
    if (state.opened) return state.opened;
    const { trace } = state;
    const metadata: JsonObject = { "openai_agents.trace_id": trace.traceId };
    if (trace.groupId) metadata["openai_agents.group_id"] = trace.groupId;
    for (const [k, v] of Object.entries(trace.metadata ?? {})) metadata[k] = toJsonSafe(v);
    const scope = openDetached(this.runtime, trace.name || "trace", {
      category: "function",
      parentUuid: state.appParent,
      timestamp: state.startedAt,
      metadata,
    });
    state.opened = { kind: "scope", uuid: scope.handle.uuid, scope };
    return state.opened;
  }

  private parentUuid(state: TraceState, span: AnySpan): string {
    const parent = span.parentId ? state.spans.get(span.parentId) : undefined;
    return parent ? this.ensureSpan(state, parent).uuid : this.ensureTrace(state).uuid;
  }

  private ensureSpan(state: TraceState, entry: SpanState): Opened {
    if (entry.opened) return entry.opened;
    const { span } = entry;
    const at: OpenAt = { parentUuid: this.parentUuid(state, span), timestamp: span.startedAt ?? new Date() };
    const data = span.spanData;
    let opened: Opened;
    switch (data.type) {
      case "generation":
      case "response":
        opened = this.openLlm(data, at);
        break;
      case "function":
        opened = this.openTool(state, data, at);
        break;
      case "handoff": {
        const payload: JsonObject = {};
        if (data.from_agent !== undefined) payload.from_agent = data.from_agent;
        if (data.to_agent !== undefined) payload.to_agent = data.to_agent;
        const uuid = this.runtime.mark("handoff", { parent: { uuid: at.parentUuid }, timestamp: at.timestamp, data: payload });
        opened = { kind: "mark", uuid };
        break;
      }
      default:
        opened = this.openScope(state, data, at);
    }
    entry.opened = opened;
    return opened;
  }

  /** A generation (Chat Completions) or response (Responses API) span: an LLM call. */
  private openLlm(data: SpanDataOf<"generation" | "response">, { parentUuid, timestamp }: OpenAt): Opened {
    const handle =
      data.type === "generation"
        ? this.runtime.startLlm(
            "openai.chat_completions",
            { content: generationRequest(data) },
            {
              parent: { uuid: parentUuid },
              timestamp,
              dataSchema: CHAT_COMPLETIONS_SCHEMA,
              ...(data.model !== undefined ? { modelName: data.model } : {}),
            },
          )
        : this.runtime.startLlm(
            "openai.responses",
            { content: responseRequest(data) },
            { parent: { uuid: parentUuid }, timestamp, dataSchema: openaiResponsesCodec.schema },
          );
    return { kind: "llm", uuid: handle.uuid, handle };
  }

  /** A function span: a tool call, with the model's call id when one matches. */
  private openTool(state: TraceState, data: SpanDataOf<"function">, { parentUuid, timestamp }: OpenAt): Opened {
    const callId = this.claimCall(state, data.name, data.input);
    const handle = this.runtime.startTool(data.name, parseJsonText(data.input), {
      parent: { uuid: parentUuid },
      timestamp,
      ...(callId !== undefined ? { toolCallId: callId } : {}),
      ...(data.mcp_data ? { metadata: { "openai_agents.mcp_data": parseJsonText(data.mcp_data) } } : {}),
    });
    return { kind: "tool", uuid: handle.uuid, handle };
  }

  /** Agent, guardrail, custom and every other span type: a scope. */
  private openScope(state: TraceState, data: SpanData, { parentUuid, timestamp }: OpenAt): Opened {
    let scope: DetachedScope;
    switch (data.type) {
      case "agent": {
        const metadata: JsonObject = { session_id: state.trace.groupId ?? state.trace.traceId };
        if (data.tools) metadata["openai_agents.tools"] = data.tools;
        if (data.handoffs) metadata["openai_agents.handoffs"] = data.handoffs;
        scope = openDetached(this.runtime, data.name, { category: "agent", parentUuid, timestamp, metadata });
        break;
      }
      case "guardrail":
        scope = openDetached(this.runtime, data.name, { category: "guardrail", parentUuid, timestamp });
        break;
      case "custom":
        scope = openDetached(this.runtime, data.name, {
          category: "custom",
          parentUuid,
          timestamp,
          categoryProfile: { subtype: data.name },
          input: toJsonSafe(data.data),
        });
        break;
      case "task":
      case "turn":
      case "mcp_tools":
      case "speech_group":
        scope = openDetached(this.runtime, stepName(data), { category: "function", parentUuid, timestamp, ...stepOpening(data) });
        break;
      case "transcription":
      case "speech":
        scope = openDetached(this.runtime, `openai.${data.type}`, { category: "custom", parentUuid, timestamp, ...audioOpening(data) });
        break;
      default: {
        // A span type newer than this adapter: a function scope named by the type.
        const named = data as { type: string; name?: unknown };
        scope = openDetached(this.runtime, typeof named.name === "string" ? named.name : named.type, {
          category: "function",
          parentUuid,
          timestamp,
          metadata: { "openai_agents.span_type": named.type },
        });
      }
    }
    return { kind: "scope", uuid: scope.handle.uuid, scope };
  }

  private close(state: TraceState, span: AnySpan, opened: Opened): void {
    const runtime = this.runtime;
    const timestamp = span.endedAt ?? new Date();
    const error = span.error ? asError(span.error) : undefined;
    const data = span.spanData;
    switch (opened.kind) {
      case "mark":
        return;
      case "llm": {
        const response = data.type === "generation" ? generationResponse(data) : data.type === "response" ? responseResponse(data) : null;
        state.unclaimed.push(...requestedToolCalls(response));
        // A response span does not know its model until the response names it.
        const modelName = data.type === "response" ? responseModel(response) : undefined;
        if (error) runtime.endLlm(opened.handle, null, { error, timestamp });
        else runtime.endLlm(opened.handle, response, modelName === undefined ? { timestamp } : { timestamp, modelName });
        return;
      }
      case "tool": {
        if (data.type !== "function") return;
        // A failed call's end data is what the model was told, so ATIF keeps it as the observation.
        if (error) runtime.endTool(opened.handle, { error }, { timestamp, data: data.output ? parseJsonText(data.output) : error.message });
        else runtime.endTool(opened.handle, { result: parseJsonText(data.output) }, { timestamp, metadata: { "otel.status_code": "OK" } });
        return;
      }
      case "scope": {
        const { output, metadata } = scopeClosing(data);
        closeDetached(runtime, opened.scope, {
          timestamp,
          ...(output !== undefined ? { output } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
          ...(error ? { error } : {}),
        });
      }
    }
  }

  /** The id of the first unclaimed model tool call with this name (and these arguments, when known). */
  private claimCall(state: TraceState, name: string, input: string | undefined): string | undefined {
    let index = state.unclaimed.findIndex((c) => c.name === name && (input === undefined || input === "" || c.arguments === input));
    if (index < 0) index = state.unclaimed.findIndex((c) => c.name === name);
    if (index < 0) return undefined;
    return state.unclaimed.splice(index, 1)[0]!.id;
  }
}
