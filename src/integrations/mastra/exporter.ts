import type { AnyExportedSpan, ObservabilityExporter, ScoreEvent, TracingEvent } from "@mastra/core/observability";
import type { Runtime } from "../../runtime/runtime.js";
import { DiagnosticCounter, type Diagnostic } from "../../wire/diagnostics.js";
import { currentScopeUuid } from "../detached-scopes.js";
import { is } from "../../events/option-spec.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { recordScore, type MastraScore, type MastraTraceScore } from "./scores.js";
import { dateOf, errorOf, stringOf } from "./span-fields.js";
import { endModelCall, generationMessages, generationSettings, generationTools, startModelCall } from "./model-call.js";
import { closeSpanScope, endSpanTool, openSpanScope, queueToolResult, recordSpanMark, startSpanTool, TOOL_TYPES } from "./span-records.js";
import { StepOrder } from "./step-order.js";
import type { Step, TrackedSpan } from "./tracked-span.js";

/** Options of `RelaytraceExporter`. */
export interface RelaytraceExporterOptions extends AdapterOptions {
  /** The exporter's name in Mastra's logs (default `relaytrace`). */
  name?: string;
  /**
   * Most Mastra spans held open at once (default 10,000). A span that never ends would otherwise be
   * held forever: past the bound the oldest open span is ended with an error and counted as
   * `mastra.unended_span_dropped`.
   */
  maxOpenSpans?: number;
  /** How many ended spans (and traces) are remembered, so late children and scores still find their scope (default 10,000). */
  maxEndedSpans?: number;
}

const DEFAULT_LIMIT = 10_000;

const EXPORTER_OPTIONS = declareAdapterOptions<RelaytraceExporterOptions>("RelaytraceExporter", {
  name: is.string,
  maxOpenSpans: is.positiveInteger,
  maxEndedSpans: is.positiveInteger,
});

/**
 * An `ObservabilityExporter` for `@mastra/observability`: pass it in an `Observability` config's
 * `exporters`. Mastra's span stream becomes relaytrace scopes with Mastra's own times and parent
 * links: an agent run an `agent` scope, its model generation and steps `function` scopes, each
 * provider call (`model_inference`) an `llm` scope in the Chat Completions shape (messages, tool
 * definitions, text, tool calls, usage with cached tokens, model), tool calls `tool` scopes with
 * their arguments, results and call ids, workflow runs and steps `function` scopes, scorer runs
 * `evaluator` scopes. Scores become evaluation marks (`EvaluationData`) on the scored span's scope.
 * Telemetry never throws into the app: failures are counted in `diagnostics()`.
 */
export class RelaytraceExporter implements ObservabilityExporter {
  readonly name: string;
  private readonly open = new Map<string, TrackedSpan>();
  private readonly ended = new Map<string, string>();
  private readonly traceRoots = new Map<string, string>();
  private readonly counter = new DiagnosticCounter();
  private readonly maxOpen: number;
  private readonly maxEnded: number;
  private readonly steps = new StepOrder({
    openTool: (tracked) => this.openTool(tracked),
    endHeldTool: (tracked) => this.endHeldTool(tracked),
  });

  constructor(private readonly options: RelaytraceExporterOptions = {}) {
    EXPORTER_OPTIONS.check(options);
    this.name = options.name ?? "relaytrace";
    this.maxOpen = options.maxOpenSpans ?? DEFAULT_LIMIT;
    this.maxEnded = options.maxEndedSpans ?? DEFAULT_LIMIT;
  }

  private get runtime(): Runtime {
    return runtimeOf(this.options);
  }

  /** Counted problems: failed events, spans ended by the bound or at shutdown, scores whose span was unknown. */
  diagnostics(): Diagnostic[] {
    return this.counter.list();
  }

  /** How many Mastra spans are open now. */
  openSpanCount(): number {
    return this.open.size;
  }

  async exportTracingEvent(event: TracingEvent): Promise<void> {
    this.guard(() => {
      const span = event.exportedSpan;
      switch (event.type as string) {
        case "span_started":
          this.start(span);
          return;
        case "span_ended":
          this.end(span);
          return;
        default: {
          const tracked = this.open.get(span.id);
          if (tracked) tracked.span = span;
        }
      }
    });
  }

  async onScoreEvent(event: ScoreEvent): Promise<void> {
    this.guard(() => {
      const s = event.score;
      this.score({
        traceId: s.traceId,
        spanId: s.spanId,
        name: s.scorerName ?? s.scorerId,
        scorerId: s.scorerId,
        score: s.score,
        reason: s.reason,
        source: s.scoreSource ?? s.source,
        timestamp: s.timestamp,
        metadata: s.metadata,
      });
    });
  }

  async addScoreToTrace(args: MastraTraceScore): Promise<void> {
    this.guard(() => {
      this.score({
        traceId: args.traceId,
        spanId: args.spanId,
        name: args.scorerName,
        score: args.score,
        reason: args.reason,
        metadata: args.metadata,
      });
    });
  }

  async flush(): Promise<void> {
    await this.flushRuntime();
  }

  /**
   * Ends every scope Mastra left open (innermost first) with an error saying so, counted as
   * `mastra.unended_at_shutdown`, then flushes the runtime.
   */
  async shutdown(): Promise<void> {
    this.guard(() => {
      const unfinished = [...this.open.values()].reverse();
      if (unfinished.length > 0) {
        const names = unfinished.map((t) => t.span.name).slice(0, 5);
        this.counter.record(
          "mastra.unended_at_shutdown",
          `${unfinished.length} Mastra span(s) never ended, ended at shutdown: ${names.join(", ")}`,
          unfinished.length,
        );
      }
      const error = new Error("ended at shutdown: Mastra never ended the span");
      for (const tracked of unfinished) if (this.open.get(tracked.span.id) === tracked) this.finish(tracked, undefined, error);
    });
    await this.flushRuntime();
  }

  private async flushRuntime(): Promise<void> {
    try {
      await this.runtime.flush();
    } catch (error) {
      this.counter.recordError("mastra.flush_failed", error);
    }
  }

  /** One Mastra score as an evaluation mark, on the scope of the span (else the trace) it scores. */
  private score(score: MastraScore): void {
    let target: string | undefined;
    if (score.spanId !== undefined) {
      const open = this.open.get(score.spanId);
      target = open ? this.uuidOf(open) : this.ended.get(score.spanId);
    }
    // A trace's score, or a score of a span Mastra did not export (internal, filtered): on the trace's root.
    if (target === undefined && score.traceId !== undefined) target = this.traceRoots.get(score.traceId);
    recordScore(this.runtime, this.counter, score, target);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.counter.recordError("mastra.event_failed", error);
    }
  }

  // ---- spans --------------------------------------------------------------------------------

  private start(span: AnyExportedSpan): TrackedSpan | undefined {
    const type = span.type as string;
    if (type === "model_chunk" || span.isEvent || this.open.has(span.id)) return this.open.get(span.id);
    if (this.open.size >= this.maxOpen) this.evictOldest();
    const parentUuid = this.parentUuidOf(span);
    const parent = span.parentSpanId !== undefined ? this.open.get(span.parentSpanId) : undefined;
    const tracked: TrackedSpan = { span, kind: "scope", parentUuid };
    // A generation's steps, calls and tools share its conversation (an agent run inside a tool has its own).
    if (parent?.generation && (type === "model_step" || type === "model_inference" || TOOL_TYPES.has(type))) {
      tracked.generation = parent.generation;
    }
    if (TOOL_TYPES.has(type)) {
      tracked.kind = "tool";
      this.open.set(span.id, tracked);
      this.steps.toolStarted(parent?.step, tracked);
      return tracked;
    }
    if (type === "model_inference") {
      tracked.kind = "llm";
      this.openLlm(tracked, parent?.step);
    } else {
      if (type === "model_generation") {
        const messages = generationMessages(span.input);
        const model = stringOf(span.attributes, "model");
        tracked.generation = {
          history: messages,
          pendingResults: [],
          tools: generationTools(span.attributes),
          settings: generationSettings(span.attributes),
          ...(model !== undefined ? { model } : {}),
        };
        // Without exported steps, the provider calls and tool calls are the generation's children.
        tracked.step = this.steps.newStep(false);
      } else if (type === "model_step") {
        tracked.step = this.steps.newStep(true);
        // Tool results of the step before belong before this step's call.
        if (tracked.generation) tracked.generation.history.push(...tracked.generation.pendingResults.splice(0));
      }
      openSpanScope(this.runtime, tracked);
      this.rootOf(span, tracked.uuid!);
    }
    this.open.set(span.id, tracked);
    return tracked;
  }

  private end(span: AnyExportedSpan): void {
    const type = span.type as string;
    if (type === "model_chunk") return;
    let tracked = this.open.get(span.id);
    if (!tracked) {
      if (this.ended.has(span.id)) {
        this.counter.record("mastra.late_end", `span ${span.name} ended after relaytrace had ended it`);
        return;
      }
      if (span.isEvent) {
        recordSpanMark(this.runtime, span, this.parentUuidOf(span));
        return;
      }
      // A span that started before the exporter saw it: recorded from its end.
      tracked = this.start(span);
      if (!tracked) return;
    }
    tracked.span = span;
    const error = span.errorInfo ? errorOf(span.errorInfo) : undefined;
    this.finish(tracked, span, error);
  }

  /** Ends a tracked span (with Mastra's end, or at eviction or shutdown without one) and remembers its scope. */
  private finish(tracked: TrackedSpan, end: AnyExportedSpan | undefined, error: Error | undefined): void {
    const runtime = this.runtime;
    const span = end ?? tracked.span;
    const timestamp = end ? (dateOf(end.endTime) ?? new Date()) : new Date();
    if (tracked.deferredIn) {
      if (end) {
        // Still waiting for its provider call: it is recorded when that call ends. Mastra's end counts
        // once (observability before 1.17.4 ends a failed tool call twice).
        if (tracked.ended !== undefined) return;
        tracked.ended = end;
        queueToolResult(tracked, end, error);
        return;
      }
      // Ended at eviction or shutdown while waiting: recorded now (and ended now, unless Mastra had).
      const hadEnd = tracked.ended !== undefined;
      this.steps.release(tracked);
      if (hadEnd) return;
    }
    this.open.delete(span.id);
    switch (tracked.kind) {
      case "tool": {
        if (end) queueToolResult(tracked, end, error);
        endSpanTool(runtime, tracked, span, timestamp, error);
        break;
      }
      case "llm": {
        const step = this.stepOf(tracked);
        endModelCall(this.runtime, tracked.llm!, span, tracked.generation, step?.firstToolStart, timestamp, error);
        this.steps.callEnded(step, tracked);
        break;
      }
      case "scope": {
        const step = tracked.step;
        if (step?.standsForCall && !step.sawInference) {
          // No provider call span was exported for this step: the step's own times, reply and usage stand for it.
          const handle = startModelCall(this.runtime, span, tracked.generation, tracked.uuid!, false);
          endModelCall(this.runtime, handle, span, tracked.generation, step?.firstToolStart, timestamp, error);
        }
        if (step) this.steps.releaseAll(step);
        closeSpanScope(runtime, tracked, span, timestamp, error);
        break;
      }
    }
    this.remember(span, tracked.uuid!);
  }

  /** Ends a held tool call with the end Mastra gave it while it waited (its result already joined the conversation). */
  private endHeldTool(tracked: TrackedSpan): void {
    const end = tracked.ended!;
    const error = end.errorInfo ? errorOf(end.errorInfo) : undefined;
    this.open.delete(end.id);
    endSpanTool(this.runtime, tracked, end, dateOf(end.endTime) ?? new Date(), error);
    this.remember(end, tracked.uuid!);
  }

  private stepOf(tracked: TrackedSpan): Step | undefined {
    const parentId = tracked.span.parentSpanId;
    return parentId !== undefined ? this.open.get(parentId)?.step : undefined;
  }

  /** The uuid of a tracked span's scope, recording a deferred tool call now if a child needs it. */
  private uuidOf(tracked: TrackedSpan): string {
    if (tracked.deferredIn) this.steps.release(tracked);
    return tracked.uuid!;
  }

  private parentUuidOf(span: AnyExportedSpan): string {
    const parentId = span.parentSpanId;
    if (parentId !== undefined) {
      const parent = this.open.get(parentId);
      if (parent) return this.uuidOf(parent);
      const ended = this.ended.get(parentId);
      if (ended !== undefined) return ended;
      // A parent Mastra did not export (internal, filtered): the trace's root span, else the app's scope.
      const root = this.traceRoots.get(span.traceId);
      if (root !== undefined) return root;
    }
    return currentScopeUuid();
  }

  private openLlm(tracked: TrackedSpan, step: Step | undefined): void {
    const handle = startModelCall(this.runtime, tracked.span, tracked.generation, tracked.parentUuid);
    tracked.llm = handle;
    tracked.uuid = handle.uuid;
    this.steps.callStarted(step, tracked);
    this.rootOf(tracked.span, handle.uuid);
  }

  private openTool(tracked: TrackedSpan): void {
    startSpanTool(this.runtime, tracked);
    this.rootOf(tracked.span, tracked.uuid!);
  }

  /** Ends the oldest open span: a span Mastra never ends must not be held forever. */
  private evictOldest(): void {
    const oldest = this.open.values().next().value;
    if (!oldest) return;
    this.counter.record(
      "mastra.unended_span_dropped",
      `more than ${this.maxOpen} Mastra spans open: ${oldest.span.name} (${oldest.span.id}) was ended before Mastra ended it`,
    );
    this.finish(oldest, undefined, new Error(`relaytrace ended it: more than ${this.maxOpen} Mastra spans were open`));
  }

  private remember(span: AnyExportedSpan, uuid: string): void {
    this.ended.set(span.id, uuid);
    if (this.ended.size > this.maxEnded) this.ended.delete(this.ended.keys().next().value!);
  }

  private rootOf(span: AnyExportedSpan, uuid: string): void {
    if (span.parentSpanId !== undefined || this.traceRoots.has(span.traceId)) return;
    this.traceRoots.set(span.traceId, uuid);
    if (this.traceRoots.size > this.maxEnded) this.traceRoots.delete(this.traceRoots.keys().next().value!);
  }
}
