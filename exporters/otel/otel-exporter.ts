import { DEFAULT_NAMESPACE, MARK_SESSION_START } from "../../src/events/wire-names.js";
import type { Exporter } from "../../src/runtime/exporter.js";
import { ExporterRegistrations, type ExporterRuntime } from "../exporter-runtime.js";
import { SpanKind, SpanStatusCode, TraceFlags, type SpanContext, type SpanStatus } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { eventMicros } from "../../src/events/timestamp.js";
import { otelSpanIdHex } from "../../src/events/otel-ids.js";
import type { AtofEvent, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import { traceLinkOf } from "../../src/events/trace-link.js";
import { packageVersion } from "../../src/events/package-version.js";
import { DiagnosticCounter, type Diagnostic } from "../../src/wire/diagnostics.js";
import { FinishedSpan, type InstrumentationScope } from "./finished-span.js";
import { createProjection } from "./projections.js";
import { hrTimeFromMicros, idHex, spanIdFromUuid, traceIdFromUuid } from "./ids.js";
import {
  DEFAULT_MARK_EXCLUDE_NAMES,
  isEvaluationMark,
  isMetricMark,
  markAttributes,
  usesToolProjection,
  type MarkProjectionSetting,
} from "./marks.js";
import type { OpenSpan } from "./open-span.js";
import type { Projection, ProjectionName } from "./projection.js";
import { writeSessionIdentity } from "./session.js";
import { writeRunContext } from "./run-context-attributes.js";
import { writePrompt } from "./prompt-attributes.js";
import { SpanRegistry } from "./span-registry.js";
import { scopeTypeOf } from "./scope-attributes.js";
import { recordedRemoteParent } from "./remote-parent.js";
import { applyErrorOutcome, errorTypeOf, statusOf } from "./status.js";
import { checkOtelOptions, type OtelExporterOptions } from "./options.js";
import { attributeKey } from "./flatten.js";
import { AttributeControls } from "./attribute-controls.js";
import { contentCaptureFromEnv, genAiConventionsFromEnv, sdkDisabled, type EnvProblem, type GenAiConventions } from "./env.js";
import type { GenAiEventRecord } from "./gen-ai-events.js";
import { ContentFilter } from "./content-filter.js";
import { logsPipeline, metricsPipeline, tracePipeline, type LogsSignal, type MetricsSignal, type TracePipeline } from "./pipeline.js";
import { sampleSpan } from "./sampling.js";
import { applyEventValueLimits, applySpanLimits } from "./span-limits.js";
import { newSpanAttributes } from "./span-attributes.js";

/** The private attribute namespace used when `namespace` is not set. */
export { DEFAULT_NAMESPACE };
/** Status description of spans that `shutdown()` ends because their end event never came. */
export const UNENDED_SPAN_DESCRIPTION = "span not ended before shutdown";

export type { OtelExporterOptions } from "./options.js";

/** The part of a runtime the exporter needs (see ExporterRuntime). */
export type SubscribableRuntime = ExporterRuntime;

/** Projects ATOF events to OpenTelemetry spans and ships them through a BatchSpanProcessor. */
export class OtelExporter implements Exporter {
  private readonly registrations: ExporterRegistrations;
  readonly projection: ProjectionName;
  readonly namespace: string;
  /** The GenAI semantic conventions of the `gen_ai` spans and of the GenAI metrics. */
  readonly genAiConventions: GenAiConventions;
  private readonly impl: Projection;
  private readonly registry = new SpanRegistry();
  private readonly counter = new DiagnosticCounter();
  private readonly pipeline: TracePipeline | undefined;
  private readonly logs: LogsSignal | undefined;
  private readonly metrics: MetricsSignal | undefined;
  private readonly resource: Resource | undefined;
  private readonly scope: InstrumentationScope;
  private readonly markSetting: MarkProjectionSetting;
  private readonly markExclude: ReadonlySet<string>;
  private readonly timeoutMillis: number;
  /** Undefined unless an attribute-control option is set, so spans without them pay one check. */
  private readonly controls: AttributeControls | undefined;
  /** Undefined unless `captureContent` or `aliases` is off. */
  private readonly contentFilter: ContentFilter | undefined;
  /** `OTEL_SDK_DISABLED=true`: events are ignored and nothing is exported. */
  readonly disabled: boolean;
  private lastSeenUs = 0;
  private stopped = false;
  private shutdownPromise: Promise<void> | undefined;

  /** Throws a `TypeError` naming the option on a configuration mistake (unknown key, bad projection, non-http(s) endpoint). */
  constructor(options: OtelExporterOptions) {
    const endpoints = checkOtelOptions(options);
    this.projection = options.projection;
    this.registrations = new ExporterRegistrations(`otel:${options.projection}`);
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
    // Read here, not at import: a Worker has no environment until a request runs.
    this.genAiConventions = options.genAiConventions ?? genAiConventionsFromEnv();
    this.impl = createProjection(options.projection, this.namespace, this.genAiConventions, (event) => this.onGenAiEvent(event));
    this.markSetting = options.markProjection ?? "inherit";
    this.markExclude = new Set(options.markExcludeNames ?? DEFAULT_MARK_EXCLUDE_NAMES);
    this.controls = AttributeControls.create(options, options.projection, this.namespace, this.counter);
    // Code wins; else the GenAI variable; else on (relaytrace's default; the conventions advise opt-in).
    const problems: EnvProblem[] = [];
    const fromEnv = options.captureContent === undefined ? contentCaptureFromEnv(problems) : undefined;
    for (const p of problems) this.counter.record("otel.env_invalid", p.message);
    const captureContent = options.captureContent ?? fromEnv?.spans ?? true;
    const captureEventContent = options.captureContent ?? fromEnv?.events ?? true;
    this.contentFilter = ContentFilter.create(captureContent, options.aliases ?? true, this.namespace);
    this.timeoutMillis = options.timeoutMillis ?? 3000;
    this.scope = { name: options.instrumentationScope ?? "relaytrace", version: packageVersion() };
    this.disabled = sdkDisabled();
    if (this.disabled) return; // OTEL_SDK_DISABLED: every signal off, nothing built
    this.pipeline = tracePipeline(options, endpoints.endpoint, this.scope, this.counter);
    this.timeoutMillis = this.pipeline.timeoutMillis;
    this.resource = this.pipeline.resource;
    this.logs = logsPipeline(options, endpoints, this.resource, this.scope, this.namespace, this.counter, captureEventContent);
    this.metrics = metricsPipeline(options, endpoints, this.resource, this.scope, this.counter, this.genAiConventions);
  }

  /**
   * Subscribes to the runtime under a name unique to this instance (`otel:<projection>#N`);
   * `runtime.flush()`/`shutdown()` then reach this exporter too. Returns the remover.
   */
  register(runtime: SubscribableRuntime): () => boolean {
    return this.registrations.register(runtime, (event) => this.onEvent(event), this);
  }

  /** Feeds one event (what the subscription does); never throws. */
  onEvent(event: AtofEvent): void {
    if (this.stopped || this.disabled) return;
    try {
      const us = eventMicros(event);
      if (us > this.lastSeenUs) this.lastSeenUs = us;
      if (event.kind === "mark") this.onMark(event, us);
      else if (event.scope_category === "start") this.onStart(event, us);
      else if (event.scope_category === "end") this.onEnd(event, us);
    } catch (error) {
      this.counter.recordError("otel.event_failed", error);
    }
  }

  /** Exports every finished span; bounded by `timeoutMillis`, failures counted, never rejects. */
  async forceFlush(): Promise<void> {
    await this.registrations.flushDelivery();
    // The span exporter may still be loading: its import does not count against the export timeout.
    if (this.pipeline) await this.bounded(this.pipeline.ready, "otel.flush_failed");
    await Promise.all([
      this.pipeline?.batcher ? this.bounded(this.pipeline.batcher.forceFlush(), "otel.flush_failed") : undefined,
      this.pipeline?.processor ? this.bounded(this.pipeline.processor.forceFlush(), "otel.flush_failed") : undefined,
      this.logs ? this.bounded(this.logs.forceFlush(), "otel.logs_flush_failed") : undefined,
      this.metrics ? this.bounded(this.metrics.forceFlush(), "otel.metrics_flush_failed") : undefined,
    ]);
  }

  /** Ends still-open spans as errors, flushes and stops; idempotent and bounded in time. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.doShutdown();
    return this.shutdownPromise;
  }

  /** Counted failures (failed exports, dropped spans, malformed events), one entry per code. */
  diagnostics(): Diagnostic[] {
    return this.counter.list();
  }

  private async doShutdown(): Promise<void> {
    try {
      const open = [...this.registry.open.values()].reverse(); // children before their parents
      for (const span of open) {
        const status: SpanStatus = { code: SpanStatusCode.ERROR, message: UNENDED_SPAN_DESCRIPTION };
        applyErrorOutcome(span, null, this.lastSeenUs, this.impl.writesErrorType);
        this.finish(span, this.lastSeenUs, status);
      }
      if (open.length > 0) this.counter.record("otel.spans_unended", "spans ended by shutdown before their end event", open.length);
    } catch (error) {
      this.counter.recordError("otel.event_failed", error);
    }
    this.stopped = true;
    const { batcher, processor } = this.pipeline ?? {};
    // An app's provider is the app's to shut down: relaytrace only flushes what it handed over.
    await Promise.all([
      batcher ? this.bounded(batcher.shutdown(), "otel.shutdown_failed") : undefined,
      processor ? this.bounded(processor.forceFlush(), "otel.shutdown_failed") : undefined,
      this.logs ? this.bounded(this.logs.shutdown(), "otel.logs_shutdown_failed") : undefined,
      this.metrics ? this.bounded(this.metrics.shutdown(), "otel.metrics_shutdown_failed") : undefined,
    ]);
  }

  private onStart(start: ScopeEvent, us: number): void {
    if (this.registry.open.has(start.uuid)) {
      this.counter.record("otel.duplicate_start", `scope ${start.uuid} started twice; second start ignored`);
      return;
    }
    this.metrics?.call((m) => m.onStart(start, us));
    const appParent = recordedRemoteParent(start.metadata);
    const parent = this.registry.resolveParent(start.parent_uuid, appParent, traceLinkOf(start));
    const spanId = otelSpanIdHex(start.uuid);
    const traceId = parent ? parent.context.traceId : idHex(start.uuid);
    const scopeType = scopeTypeOf(start.category);
    const name = this.impl.spanName(start, scopeType);
    const kind = this.impl.spanKind(start, scopeType);
    const context: SpanContext = {
      traceId,
      spanId,
      traceFlags: sampleSpan(this.pipeline!.sampler, parent, appParent, traceId, name, kind, {}, this.counter),
    };
    // W3C: a span carries its parent's trace state on.
    if (parent?.context.traceState !== undefined) context.traceState = parent.context.traceState;
    const span: OpenSpan = {
      uuid: start.uuid,
      name,
      kind,
      category: start.category,
      scopeType,
      context,
      parentContext: parent?.context,
      parentSpan: parent?.open,
      isTraceRoot: parent === undefined,
      startUs: us,
      start,
      attributes: newSpanAttributes(),
      events: [],
      ended: false,
    };
    this.impl.onStart(start, span);
    writeRunContext(span.attributes, this.impl.name, start.metadata);
    writePrompt(span.attributes, this.impl.name, start);
    if (span.isTraceRoot && this.impl.writesSessionIdentity) {
      writeSessionIdentity(span.attributes, this.namespace, start.metadata, start.parent_uuid ?? undefined);
    }
    this.registry.add(span);
  }

  private onEnd(end: ScopeEvent, us: number): void {
    const span = this.registry.open.get(end.uuid);
    if (!span) return; // an end without an open span (unknown or already ended) is ignored
    const status = statusOf(end.metadata, this.counter);
    const failed = status.code === SpanStatusCode.ERROR;
    const errorType = failed ? errorTypeOf(end.metadata) : undefined;
    this.metrics?.call((m) => m.onEnd(end, us, errorType));
    this.impl.onEnd(end, span, !failed);
    if (failed) applyErrorOutcome(span, end.metadata, us, this.impl.writesErrorType);
    this.finish(span, us, status, end);
  }

  private onMark(mark: MarkEvent, us: number): void {
    if (isMetricMark(mark)) {
      this.metrics?.call((m) => m.onMetricMark(mark));
      return;
    }
    const parent = this.registry.resolveParent(mark.parent_uuid, undefined, traceLinkOf(mark));
    const enclosing = parent?.context;
    if (isEvaluationMark(mark)) {
      // An evaluation is an event of the logs signal (it may target a span long gone or another process's): never a span.
      if (this.logs) this.logs.call((l) => l.emit(mark, us, enclosing));
      else
        this.counter.record(
          "otel.evaluation_not_exported",
          "an evaluation was recorded but the logs signal is off (OtelExporter logs: true)",
        );
      return;
    }
    this.logs?.call((l) => l.emit(mark, us, enclosing));
    if (!this.impl.rendersMarks) return;
    const ns = this.namespace;
    if (mark.name === MARK_SESSION_START && this.impl.writesSessionIdentity && parent?.open) {
      let root: OpenSpan | undefined = parent.open;
      while (root && !root.isTraceRoot) root = root.parentSpan;
      if (root && !root.ended) writeSessionIdentity(root.attributes, ns, mark.metadata, undefined);
    }
    const attrs = markAttributes(ns, mark);
    const asTool = usesToolProjection(mark, this.markSetting, this.markExclude);
    this.contentFilter?.apply(attrs);
    if (!asTool && parent?.open) {
      this.controls?.applyMappings(attrs);
      parent.open.events.push({ name: mark.name, time: hrTimeFromMicros(us), attributes: attrs, droppedAttributesCount: 0 });
      return;
    }
    if (asTool) attrs[attributeKey(ns, "mark.projection")] = "tool";
    this.impl.decorateMarkSpan(mark, attrs, asTool ? "tool" : "orphan");
    if (!parent?.open) attrs[attributeKey(ns, "mark.orphan")] = true;
    this.contentFilter?.apply(attrs);
    this.controls?.applyMappings(attrs);
    const traceId = parent ? parent.context.traceId : traceIdFromUuid(mark.uuid);
    const context: SpanContext = {
      traceId,
      spanId: spanIdFromUuid(mark.uuid),
      traceFlags: sampleSpan(this.pipeline!.sampler, parent, undefined, traceId, `mark:${mark.name}`, SpanKind.INTERNAL, {}, this.counter),
    };
    this.registry.remember(mark.uuid, context);
    const dropped = applySpanLimits(attrs, this.pipeline!.limits);
    this.enqueue(
      new FinishedSpan({
        name: `mark:${mark.name}`,
        kind: SpanKind.INTERNAL,
        context,
        parentContext: parent?.context,
        startUs: us,
        endUs: us,
        status: { code: SpanStatusCode.UNSET },
        attributes: attrs,
        events: [],
        resource: this.resource!,
        scope: this.scope,
        droppedAttributesCount: dropped,
      }),
    );
  }

  /** A GenAI event is a log record: without the logs signal it is counted, not lost silently. */
  private onGenAiEvent(event: GenAiEventRecord): void {
    if (this.logs) this.logs.call((l) => l.emitGenAiEvent(event));
    else
      this.counter.record(
        "otel.gen_ai_event_not_exported",
        `${event.name} was recorded but the logs signal is off (OtelExporter logs: true)`,
      );
  }

  private finish(span: OpenSpan, endUs: number, status: SpanStatus, end?: ScopeEvent): void {
    span.ended = true;
    this.controls?.finishScope(span.attributes, span.start.metadata, end?.metadata);
    this.registry.complete(span);
    this.contentFilter?.apply(span.attributes);
    const dropped = applySpanLimits(span.attributes, this.pipeline!.limits);
    applyEventValueLimits(span.events, this.pipeline!.limits);
    this.enqueue(
      new FinishedSpan({
        name: span.name,
        kind: span.kind,
        context: span.context,
        parentContext: span.parentContext,
        startUs: span.startUs,
        endUs,
        status,
        attributes: span.attributes,
        events: span.events,
        resource: this.resource!,
        scope: this.scope,
        droppedAttributesCount: dropped,
      }),
    );
  }

  /** Hands a sampled span to the span processor; relaytrace's own batch queue drops (and counts) when full. */
  private enqueue(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    const { batcher, processor } = this.pipeline!;
    if (batcher !== undefined) {
      if (!batcher.offer(span)) this.counter.record("otel.spans_dropped", "span dropped: the export queue is full");
    } else {
      processor?.onEnd(span);
    }
  }

  private async bounded(work: Promise<void>, code: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.timeoutMillis + 500);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([work.then(() => "done" as const), timeout]);
      if (outcome === "timeout") this.counter.record(code, `gave up after ${this.timeoutMillis + 500} ms`);
    } catch (error) {
      this.counter.recordError(code, error);
    } finally {
      clearTimeout(timer);
    }
  }
}
