import { loadPricingCatalog } from "../wire/pricing.js";
import { DEFAULT_NAMESPACE, METRIC_SCHEMA } from "../events/wire-names.js";
import { MonotonicClock, systemClock } from "../events/clock.js";
import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import { createScopeStack, type ScopeStack } from "../events/scope-stack.js";
import { META_TRACE_LINK, recordableTraceLink, TRACE_LINK, type TraceLink } from "../events/trace-link.js";
import { TRACEPARENT_KEY } from "../events/traceparent.js";
import { metadataWithRunContext } from "../events/run-context.js";
import { toMicros } from "../events/timestamp.js";
import type { DataSchema } from "../events/types.js";
import { ATOF_VERSION } from "../events/types.js";
import { uuidv7 } from "../events/uuid.js";
import { DEFAULT_HEADER_POLICY, HeaderPolicy } from "../wire/credentials.js";
import { DiagnosticCounter } from "../wire/diagnostics.js";
import type { JsonCopyIssues } from "./json-safe.js";
import type { PricingSetup } from "./llm-cost.js";
import { LlmTotals } from "./llm-totals.js";
import { FrozenJson, isJsonAsItIs, toJsonSafe } from "./json-safe.js";
import type { DraftEvent, Route, Transform } from "./publisher.js";
import { FROZEN_DATA, FROZEN_METADATA, FROZEN_PROFILE, Publisher } from "./publisher.js";
import { Registry } from "./registry.js";
import { DROPPED_TRACES_METRIC, EMITTED_UNDER } from "./tail-sampler.js";
import type {
  EventNameSanitizer,
  EventSanitizer,
  LlmRequest,
  MetadataInjector,
  RuntimeOptions,
  Subscriber,
  Timestamp,
  ToolExecutionIntercept,
} from "./types.js";

export type ToolGuardrail = (tool: string, args: Json) => string | null | undefined | Promise<string | null | undefined>;
export type ToolRequestIntercept = (tool: string, args: Json) => Json | Promise<Json>;
export type PayloadSanitizer = (name: string, value: Json) => Json;
export type LlmGuardrail = (name: string, request: LlmRequest) => string | null | undefined | Promise<string | null | undefined>;
export type LlmRequestIntercept = (name: string, request: LlmRequest) => LlmRequest | Promise<LlmRequest>;
export type LlmExecutionIntercept = (
  request: LlmRequest,
  next: (request: LlmRequest) => Promise<Json>,
  info: { name: string; llmUuid: string; modelName?: string },
) => Json | Promise<Json>;

/**
 * Wraps a managed stream (lowest priority outermost): call `next(request)` for the downstream
 * chunks and return the chunks the caller should see — the same ones, observed, or transformed.
 */
export type LlmStreamIntercept = (
  request: LlmRequest,
  next: (request: LlmRequest) => AsyncIterable<unknown>,
  info: { name: string; llmUuid: string; modelName?: string },
) => AsyncIterable<unknown>;

/** Every registry of a runtime, by family. */
export class Registries {
  readonly subscribers = new Registry<Subscriber>("subscriber", "insertion");
  readonly injectors = new Registry<MetadataInjector>("metadata injector");
  readonly nameSanitizers = new Registry<EventNameSanitizer>("event name sanitizer");
  readonly markSanitizers = new Registry<EventSanitizer>("mark sanitizer");
  readonly scopeStartSanitizers = new Registry<EventSanitizer>("scope start sanitizer");
  readonly scopeEndSanitizers = new Registry<EventSanitizer>("scope end sanitizer");
  readonly toolGuardrails = new Registry<ToolGuardrail>("tool conditional guardrail");
  readonly toolRequestIntercepts = new Registry<ToolRequestIntercept>("tool request intercept");
  readonly toolExecutionIntercepts = new Registry<ToolExecutionIntercept>("tool execution intercept");
  readonly toolSanitizeRequest = new Registry<PayloadSanitizer>("tool sanitize-request");
  readonly toolSanitizeResponse = new Registry<PayloadSanitizer>("tool sanitize-response");
  readonly llmGuardrails = new Registry<LlmGuardrail>("llm conditional guardrail");
  readonly llmRequestIntercepts = new Registry<LlmRequestIntercept>("llm request intercept");
  readonly llmExecutionIntercepts = new Registry<LlmExecutionIntercept>("llm execution intercept");
  readonly llmStreamIntercepts = new Registry<LlmStreamIntercept>("llm stream execution intercept");
  readonly llmSanitizeRequest = new Registry<(value: Json) => Json>("llm sanitize-request");
  readonly llmSanitizeResponse = new Registry<(value: Json) => Json>("llm sanitize-response");

  all(): Registry<unknown>[] {
    return Object.values(this) as Registry<unknown>[];
  }
}

function frozenFields(profile: boolean, data: boolean, metadata: boolean): number {
  return (profile ? FROZEN_PROFILE : 0) | (data ? FROZEN_DATA : 0) | (metadata ? FROZEN_METADATA : 0);
}

/**
 * A start directly under a remote parent records the trace it continues in its metadata (unless
 * it records the app's OTel parent already): files then say which trace their work belongs to.
 */
function withRecordedTraceLink(metadata: unknown, link: TraceLink): unknown {
  if (metadata !== null && metadata !== undefined && !isJsonObject(metadata as Json)) return metadata;
  const object = (metadata ?? {}) as JsonObject;
  if (TRACEPARENT_KEY in object) return metadata;
  return { ...object, [META_TRACE_LINK]: recordableTraceLink(link) };
}

/** An event directly under the remote parent of the trace its stack continues carries the trace link (exporters read it). */
function linkToRemoteParent(event: DraftEvent, stack: ScopeStack): void {
  const link = stack.link;
  if (link !== undefined && event.parent_uuid === link.parentUuid) event[TRACE_LINK] = link;
}

export interface ScopeShape {
  uuid: string;
  name: string;
  category: string;
  parentUuid: string | null;
  attributes: readonly string[];
}

function pricingSetup(option: RuntimeOptions["pricing"]): PricingSetup | undefined {
  if (option === false) return undefined;
  return option === undefined ? {} : { catalog: loadPricingCatalog(option) };
}

/** Clock, ids, registries and the publisher shared by every part of one runtime. */
export class RuntimeCore {
  readonly namespace: string;
  /** Which request header values `llm` events may record. */
  readonly headerPolicy: HeaderPolicy;
  /** How `llm` ends are priced: the app's catalog, then the bundled table; undefined with `pricing: false`. */
  readonly pricing: PricingSetup | undefined;
  /** The roll-up of calls into agent and root scopes (none with `pricing: false`). */
  readonly llmTotals: LlmTotals | undefined;
  readonly diagnostics: DiagnosticCounter;
  readonly registries = new Registries();
  readonly publisher: Publisher;
  private readonly clock: MonotonicClock;
  private readonly idGenerator: () => string;
  /** An id for an event whose time the clock just read as `us`; see `idFor`. */
  private readonly idAtUs: (us: number) => string;

  constructor(options: RuntimeOptions = {}) {
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
    this.headerPolicy = options.recordedHeaders === undefined ? DEFAULT_HEADER_POLICY : new HeaderPolicy(options.recordedHeaders);
    this.pricing = pricingSetup(options.pricing);
    this.llmTotals = this.pricing === undefined ? undefined : new LlmTotals();
    this.diagnostics = new DiagnosticCounter(options.onDiagnostic);
    this.clock = new MonotonicClock(options.clock ?? systemClock);
    this.idGenerator = options.idGenerator ?? uuidv7;
    // With the system clock an id takes its UUIDv7 time from the event's own clock reading
    // instead of reading the wall clock again (~40 ns). An injected clock is not fed to the ids:
    // uuidv7's ordering state is process-wide, so a test clock must not move other runtimes' ids.
    this.idAtUs =
      options.idGenerator !== undefined
        ? options.idGenerator
        : options.clock === undefined
          ? (us) => uuidv7(Math.floor(us / 1000))
          : () => uuidv7();
    const maxQueueSize = options.maxQueueSize ?? 10_000;
    if (!Number.isSafeInteger(maxQueueSize) || maxQueueSize < 1) {
      throw new TypeError("maxQueueSize must be a positive integer");
    }
    const sampling = options.sampling;
    this.publisher = new Publisher(
      this.registries,
      this.diagnostics,
      maxQueueSize,
      sampling === undefined
        ? undefined
        : { options: sampling, namespace: this.namespace, reportDrops: (count) => this.reportDrops(count) },
    );
  }

  /**
   * Dropped traces as a metric: a counter on a `runtime.metric()`-style mark outside every trace
   * (so no sampling holds it), which the OTel exporter's metrics signal records like any metric mark.
   */
  private reportDrops(count: number): void {
    this.emitMark(createScopeStack(), {
      uuid: this.newId(),
      parentUuid: null,
      timestampUs: this.nowUs(),
      name: DROPPED_TRACES_METRIC,
      category: null,
      profile: null,
      data: {
        measurements: [
          {
            name: DROPPED_TRACES_METRIC,
            kind: "counter",
            value_type: "u64",
            value: count,
            unit: "{trace}",
            description: "Traces that tail sampling dropped.",
          },
        ],
      },
      dataSchema: METRIC_SCHEMA,
      metadata: null,
    });
  }

  nowUs(): number {
    return this.clock.nowUs();
  }

  newId(): string {
    return this.idGenerator();
  }

  /**
   * The id of an event stamped `us`: from that same clock reading when `us` was read now (no
   * `explicit` time), else a fresh id (an app's explicit time, possibly long past or ahead, never
   * becomes an id's time).
   */
  idFor(us: number, explicit: Timestamp | undefined): string {
    return explicit === undefined ? this.idAtUs(us) : this.idGenerator();
  }

  startTime(explicit: Timestamp | undefined): number {
    return explicit === undefined ? this.clock.nowUs() : toMicros(explicit);
  }

  /**
   * `end >= start + 1 µs`, always; an explicit earlier end is clamped and counted. An implicit end
   * never precedes an end stamped before it, so with a coarse clock (milliseconds) a scope still
   * ends at or after every child that ended inside it.
   */
  endTime(startUs: number, explicit: Timestamp | undefined): number {
    if (explicit === undefined) {
      const end = Math.max(this.clock.nowUs(), startUs + 1);
      this.clock.raiseTo(end);
      return end;
    }
    const us = toMicros(explicit);
    if (us < startUs + 1) {
      this.diagnostics.record("timestamp.end_clamped", `explicit end ${us} clamped to start + 1 µs`);
      return startUs + 1;
    }
    return us;
  }

  /** Whether any subscriber would receive an event emitted from `stack` (else build nothing). */
  listening(stack: ScopeStack): boolean {
    return this.registries.subscribers.effective(stack).length > 0;
  }

  /**
   * Copies an app payload into JSON, counting what had to change; `freeze` freezes the copy as it
   * goes. `share` (by default as `freeze`: nothing will write to the result) takes a `FrozenJson`
   * and the recurring trees the runtime froze before as they are.
   */
  copy(value: unknown, what: string, freeze = false, field?: string, share = freeze): Json {
    if (value === null || value === undefined) return null;
    if (value instanceof FrozenJson) {
      if (share) return value.value;
      value = value.value;
    }
    const t = typeof value;
    if (t === "string" || t === "boolean") return value as Json;
    const issues: JsonCopyIssues = { count: 0 };
    const out = toJsonSafe(value, issues, freeze, share);
    if (issues.count > 0) {
      const subject = field === undefined ? what : `${what} ${field}`;
      this.diagnostics.record("payload_not_json", `${subject}: ${issues.count} value(s) were not JSON (first: ${issues.first}); replaced`);
    }
    return out;
  }

  /**
   * Whether an event on `route` may hold `value` itself, uncopied: the event becomes its line
   * before the emitting call returns, no callback of the route can see the event before that
   * (none of its sanitizers, injectors or name sanitizers), and the value is plain JSON, whose
   * text is the text of its copy. The line is then as good a snapshot as the copy.
   */
  private asItIs(route: Route, value: unknown): boolean {
    return (
      route.injectors.length === 0 &&
      route.names.length === 0 &&
      route.sanitizers.length === 0 &&
      this.publisher.deliversLinesNow &&
      isJsonAsItIs(value)
    );
  }

  emitScope(
    stack: ScopeStack,
    scope: ScopeShape,
    phase: "start" | "end",
    timestampUs: number,
    fields: { data: unknown; metadata: unknown; profile: JsonObject | FrozenJson<JsonObject> | null; dataSchema?: DataSchema | null },
    transform?: Transform,
  ): void {
    const route = this.publisher.route(stack, phase);
    if (route === undefined) return; // nothing wants it: build nothing, run nothing
    // Payloads nobody will rewrite (no sanitizer, injector or transform) are shared where the
    // runtime froze them before and frozen while copied, unless the event becomes its line at once.
    const lines = route.lines !== undefined && this.publisher.takesLines;
    const untouched = route.sanitizers.length === 0;
    const shareData = untouched && transform === undefined;
    const shareMetadata = untouched && route.injectors.length === 0;
    const freezeData = shareData && !lines;
    const freezeMetadata = shareMetadata && !lines;
    const data =
      shareData && lines && this.asItIs(route, fields.data)
        ? fields.data
        : this.copy(fields.data, scope.name, freezeData, "data", shareData);
    const schema = fields.dataSchema;
    const run = phase === "start" ? stack.run : undefined;
    let metadata = run === undefined ? fields.metadata : metadataWithRunContext(fields.metadata, run);
    if (phase === "start" && stack.link !== undefined && scope.parentUuid === stack.link.parentUuid) {
      metadata = withRecordedTraceLink(metadata, stack.link);
    }
    const event: DraftEvent = {
      kind: "scope",
      scope_category: phase,
      atof_version: ATOF_VERSION,
      uuid: scope.uuid,
      parent_uuid: scope.parentUuid,
      timestamp: timestampUs,
      name: scope.name,
      attributes: scope.attributes as string[],
      category: scope.category,
      category_profile:
        fields.profile === null ? null : (this.copy(fields.profile, scope.name, untouched && !lines, "profile", untouched) as JsonObject),
      data: data as Json,
      data_schema: schema ? { name: schema.name, version: schema.version } : null,
      metadata: this.copy(metadata, scope.name, freezeMetadata, "metadata", shareMetadata),
    };
    linkToRemoteParent(event, stack);
    if (lines) this.publisher.publishLine(event, route, transform);
    else this.publisher.publish(event, route, transform, frozenFields(untouched, freezeData, freezeMetadata));
  }

  emitMark(
    stack: ScopeStack,
    mark: {
      uuid: string;
      parentUuid: string | null;
      timestampUs: number;
      name: string;
      category: string | null;
      profile: JsonObject | null;
      data: unknown;
      dataSchema: DataSchema | null;
      metadata: unknown;
    },
  ): void {
    const route = this.publisher.route(stack, "mark");
    if (route === undefined) return;
    const lines = route.lines !== undefined && this.publisher.takesLines;
    const untouched = route.sanitizers.length === 0;
    const shareMetadata = untouched && route.injectors.length === 0;
    const freeze = untouched && !lines;
    const event: DraftEvent = {
      kind: "mark",
      atof_version: ATOF_VERSION,
      uuid: mark.uuid,
      parent_uuid: mark.parentUuid,
      timestamp: mark.timestampUs,
      name: mark.name,
      category: mark.category,
      category_profile: mark.profile === null ? null : (this.copy(mark.profile, mark.name, freeze, "profile", untouched) as JsonObject),
      data:
        untouched && lines && this.asItIs(route, mark.data)
          ? (mark.data as Json)
          : this.copy(mark.data, mark.name, freeze, "data", untouched),
      data_schema: mark.dataSchema ? { name: mark.dataSchema.name, version: mark.dataSchema.version } : null,
      metadata: this.copy(
        stack.run === undefined ? mark.metadata : metadataWithRunContext(mark.metadata, stack.run),
        mark.name,
        shareMetadata && !lines,
        "metadata",
        shareMetadata,
      ),
    };
    linkToRemoteParent(event, stack);
    if (lines) return this.publisher.publishLine(event, route, undefined);
    // Sampling places a mark whose parent it does not hold by where the mark was emitted (see EMITTED_UNDER).
    if (this.publisher.sampler !== undefined) (event as { [EMITTED_UNDER]?: string })[EMITTED_UNDER] = stack.top().uuid;
    this.publisher.publish(event, route, undefined, frozenFields(untouched, untouched, shareMetadata));
  }

  /**
   * The delivery-time transform of a tool or LLM event's `data`: the payload sanitize chain
   * (snapshotted now), then `fallback` when the chain yields null. A throwing sanitizer omits
   * the payload (`null`, no fallback) and skips the rest of the chain; execution is unaffected.
   * Undefined when there is nothing to do.
   */
  payloadTransform(
    entries: readonly { name: string; callback: (value: Json) => Json }[],
    family: string,
    fallback: Json | undefined,
    what: string,
  ): Transform | undefined {
    if (entries.length === 0 && fallback === undefined) return undefined;
    return (event) => {
      let current = event.data;
      for (const entry of entries) {
        try {
          current = this.copy(entry.callback(current), `${family} ${entry.name}`);
        } catch (error) {
          this.publisher.fail(family, entry.name, error);
          event.data = null;
          return;
        }
      }
      event.data = current === null && fallback !== undefined ? this.copy(fallback, what) : current;
    };
  }
}
