import {
  context as otelContext,
  createContextKey,
  createTraceState,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import { currentScopeContext, runInScopeContext, type ScopeContext, type ScopeStack } from "../events/scope-stack.js";
import { callerLink, type TraceLink } from "../events/trace-link.js";
import { formatTraceparent, parseTraceparent, TRACEPARENT_KEY, TRACESTATE_KEY, type RemoteParent } from "../events/traceparent.js";
import { otelIdHex } from "../events/otel-ids.js";
import { spanIdOf } from "../events/uuid.js";
import type { PropagationContext } from "./types.js";

/**
 * The bridge between relaytrace's scope context and the OpenTelemetry context.
 *
 * Inbound: a relaytrace trace that starts while an OTel span is active continues it. Its root is
 * parented to a uuid standing for the OTel span (trace id's first 8 bytes + span id, so the
 * exporters' span id is the OTel span id) with the OTel trace id as the propagated root, and the
 * root's start event records the W3C `traceparent` in its metadata, so a file read back later
 * rebuilds the same parent.
 *
 * Outbound: scope, tool and LLM callbacks run with the relaytrace span as the active OTel span
 * (ids derived from the event uuids exactly as the exporters derive them), so spans the app or
 * its instrumentation create inside them nest under the relaytrace span.
 */

function uuidFromHex(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The uuids standing for a remote span: root = the trace id's bytes, parent = trace id prefix + span id. */
export function remoteParentUuids(traceId: string, spanId: string): { rootUuid: string; parentUuid: string } {
  return { rootUuid: uuidFromHex(traceId), parentUuid: uuidFromHex(traceId.slice(0, 16) + spanId) };
}

/** The propagation context that continues a remote span's trace (see `withPropagation`). */
export function propagationFromRemote(parent: RemoteParent): PropagationContext {
  const { rootUuid, parentUuid } = remoteParentUuids(parent.traceId, parent.spanId);
  const out: PropagationContext = { version: 1, rootUuid, parentUuid, traceFlags: parent.traceFlags };
  if (parent.tracestate !== undefined) out.tracestate = parent.tracestate;
  return out;
}

/** What a trace root started under an active OTel span is parented to, and the metadata recording it. */
export interface InboundParent {
  /** The OTel span's trace as a relaytrace trace link (its sampled flag stays the OTel span's). */
  link: TraceLink;
  traceparent: string;
  tracestate?: string;
}

/**
 * When `context` holds no relaytrace trace yet (nothing open, nothing propagated) and an
 * OpenTelemetry span is active, the parent that continues that span; otherwise undefined.
 */
export function inboundOtelParent(context: ScopeContext): InboundParent | undefined {
  if (context.stack.frames.length > 1 || context.stack.link !== undefined || context.activeEventUuid !== undefined) {
    return undefined;
  }
  const active = trace.getSpanContext(otelContext.active());
  if (active === undefined || !isSpanContextValid(active)) return undefined;
  const link = remoteParentUuids(active.traceId, active.spanId);
  const inbound: InboundParent = { link, traceparent: formatTraceparent(active.traceId, active.spanId, active.traceFlags) };
  const state = active.traceState?.serialize();
  if (state) inbound.tracestate = state;
  return inbound;
}

/** Start-event metadata with the inbound link recorded (metadata that is not an object is left alone). */
export function withInboundLink(metadata: Json, inbound: InboundParent | undefined): Json {
  if (inbound === undefined) return metadata;
  if (metadata !== null && !isJsonObject(metadata)) return metadata;
  const out: JsonObject = { ...(metadata ?? {}), [TRACEPARENT_KEY]: inbound.traceparent };
  if (inbound.tracestate !== undefined) out[TRACESTATE_KEY] = inbound.tracestate;
  return out;
}

/**
 * The stack a call opened with `inbound` runs on: `stack` carrying the OTel span's trace link, so
 * the call's events and everything under it belong to that trace. `stack` itself without one.
 */
export function inboundStack(stack: ScopeStack, inbound: InboundParent | undefined): ScopeStack {
  return inbound === undefined ? stack : stack.linkedCopy(inbound.link);
}

/**
 * The uuid whose bytes are the trace id of the span `self` in `context`: the root of the remote
 * trace the context continues, else the first emitted scope (or, at top level, `self`).
 */
export function traceRootUuid(context: ScopeContext, self?: { uuid: string; parentUuid: string | null }): string | undefined {
  const link = context.stack.link;
  if (link !== undefined) return link.rootUuid;
  return (context.stack.frames[1] ?? self)?.uuid;
}

/**
 * The OTel span context of relaytrace span `self` whose trace root is `rootUuid`; flags and trace
 * state follow the span active in `parent` when it belongs to the same trace, else the remote
 * parent the trace was continued from (`extractTraceContext`), else sampled without state.
 */
function spanContextFor(rootUuid: string, spanUuid: string, parent: Context, stackLink: TraceLink | undefined): SpanContext {
  const traceId = otelIdHex(rootUuid);
  const active = trace.getSpanContext(parent);
  const spanId = spanIdOf(spanUuid);
  if (active !== undefined && active.traceId === traceId) {
    const spanContext: SpanContext = { traceId, spanId, traceFlags: active.traceFlags };
    if (active.traceState !== undefined) spanContext.traceState = active.traceState;
    return spanContext;
  }
  const link = callerLink(stackLink, rootUuid);
  if (link === undefined) return { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
  const spanContext: SpanContext = { traceId, spanId, traceFlags: (link.traceFlags ?? 1) & TraceFlags.SAMPLED };
  if (link.tracestate !== undefined) spanContext.traceState = createTraceState(link.tracestate);
  return spanContext;
}

/** The OTel span context of relaytrace span `self` (flags follow the active span of the same trace). */
export function spanContextOf(context: ScopeContext, self: { uuid: string; parentUuid: string | null }): SpanContext {
  return spanContextFor(traceRootUuid(context, self) ?? self.uuid, self.uuid, otelContext.active(), context.stack.link);
}

// The API's span key: `createContextKey` is `Symbol.for(description)`, so this is the key
// `trace.getSpan` reads. Checked once; if a future API changed it, spans are set eagerly instead.
const SPAN_KEY = createContextKey("OpenTelemetry Context Key SPAN");
const PROBE_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const SPAN_KEY_MATCHES = trace.getSpan(ROOT_CONTEXT.setValue(SPAN_KEY, PROBE_SPAN)) === PROBE_SPAN;

/**
 * The OTel context inside a relaytrace span: the parent context plus the relaytrace span as the
 * active span. Most callbacks never read it (and without an OTel context manager nothing can),
 * so the span context (hex ids) and the copy of the parent's values are made only when read.
 */
class RelaytraceSpanContext implements Context {
  private span: Span | undefined;
  private materialized: Context | undefined;

  constructor(
    private readonly parent: Context,
    private readonly rootUuid: string,
    private readonly spanUuid: string,
    private readonly link: TraceLink | undefined,
  ) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.activeSpan() : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return this.asBaseContext().setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return this.asBaseContext().deleteValue(key);
  }

  private activeSpan(): Span {
    return (this.span ??= trace.wrapSpanContext(spanContextFor(this.rootUuid, this.spanUuid, this.parent, this.link)));
  }

  private asBaseContext(): Context {
    return (this.materialized ??= trace.setSpan(this.parent, this.activeSpan()));
  }
}

/** The OTel context with relaytrace span `self` active (the trace root is resolved now: the stack may change later). */
function spanOtelContext(context: ScopeContext, self: { uuid: string; parentUuid: string | null }): Context {
  const parent = otelContext.active();
  const rootUuid = traceRootUuid(context, self) ?? self.uuid;
  const link = context.stack.link;
  if (!SPAN_KEY_MATCHES) return trace.setSpanContext(parent, spanContextFor(rootUuid, self.uuid, parent, link));
  return new RelaytraceSpanContext(parent, rootUuid, self.uuid, link);
}

// Whether the app registered an OpenTelemetry context manager. Without one (the API's no-op
// manager) nothing can read an active span, so a callback runs without one being built: that is
// most of a call's cost when nothing else is traced. Probed once per registered manager, as an
// app may register or replace it at any time; the API's manager getter is not public, so an API
// without it counts as having a manager (the span is built, as before).
const PROBE_CONTEXT = ROOT_CONTEXT.setValue(createContextKey("relaytrace context-manager probe"), true);
const managerGetter = (otelContext as unknown as { _getContextManager?: () => unknown })._getContextManager;
let probedManager: unknown = PROBE_CONTEXT;
let managerLive = true;

function contextManagerLive(): boolean {
  if (typeof managerGetter !== "function") return true;
  const manager = managerGetter.call(otelContext);
  if (manager !== probedManager) {
    probedManager = manager;
    try {
      managerLive = otelContext.with(PROBE_CONTEXT, () => otelContext.active() === PROBE_CONTEXT);
    } catch {
      managerLive = true;
    }
  }
  return managerLive;
}

/** Runs `fn` in relaytrace scope context `context` with span `self` as the active OpenTelemetry span. */
export function runInSpan<T>(context: ScopeContext, self: { uuid: string; parentUuid: string | null }, fn: () => T): T {
  if (!contextManagerLive()) return runInScopeContext(context, fn);
  return runInScopeContext(context, withOtelContext, spanOtelContext(context, self), fn);
}

function withOtelContext<T>(otel: Context, fn: () => T): T {
  return otelContext.with(otel, fn);
}

/**
 * Whether the app registered an OpenTelemetry propagator that writes `traceparent`: its HTTP
 * instrumentation then injects the client span's own header, and a second one from relaytrace
 * would make the request carry two.
 */
export function otelPropagatesTraceparent(): boolean {
  return propagation.fields().includes("traceparent");
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).forEach === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(",") : value;
  }
  return undefined;
}

/**
 * Turns incoming W3C `traceparent` / `tracestate` headers into a `PropagationContext` for
 * `withPropagation`, so the work done under it joins the caller's trace. Undefined when there is no
 * valid `traceparent`. Accepts a `Headers`, a plain record or Node's `IncomingHttpHeaders`.
 */
export function extractTraceContext(headers: HeaderBag): PropagationContext | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const value = headerValue(headers, "traceparent");
  if (value === undefined) return undefined;
  const first = value.split(",")[0]!;
  // Several tracestate headers are one list (W3C Trace Context §3.3.1), joined by commas.
  const parent = parseTraceparent(first, headerValue(headers, "tracestate"));
  return parent === undefined ? undefined : propagationFromRemote(parent);
}

/**
 * Writes the current span's `traceparent` (and `tracestate`) into outgoing `headers`: the
 * relaytrace span running now, else the active OpenTelemetry span. Writes nothing outside both.
 */
export function injectTraceContext(headers: Headers | Record<string, string>): void {
  const context = currentScopeContext();
  const active = trace.getSpanContext(otelContext.active());
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  const spanUuid = context.activeEventUuid ?? (context.stack.frames.length > 1 ? context.stack.top().uuid : undefined);
  if (spanUuid !== undefined) {
    const span = spanContextOf(context, { uuid: spanUuid, parentUuid: context.stack.top().parentUuid });
    traceparent = formatTraceparent(span.traceId, span.spanId, span.traceFlags);
    tracestate = span.traceState?.serialize();
  } else if (active !== undefined && isSpanContextValid(active)) {
    traceparent = formatTraceparent(active.traceId, active.spanId, active.traceFlags);
    tracestate = active.traceState?.serialize();
  }
  if (traceparent === undefined) return;
  set(headers, "traceparent", traceparent);
  if (tracestate) set(headers, "tracestate", tracestate);
}

function set(headers: Headers | Record<string, string>, name: string, value: string): void {
  if (typeof (headers as Headers).set === "function" && typeof (headers as Headers).forEach === "function") {
    (headers as Headers).set(name, value);
    return;
  }
  const record = headers as Record<string, string>;
  for (const key of Object.keys(record)) if (key.toLowerCase() === name && key !== name) delete record[key];
  record[name] = value;
}
