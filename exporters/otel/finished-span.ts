import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace";
import { hrTimeFromMicros } from "./ids.js";

const NO_LINKS: Link[] = [];

/** The SDK's instrumentation-scope shape (taken from ReadableSpan: `@opentelemetry/core` is not a direct dependency). */
export type InstrumentationScope = ReadableSpan["instrumentationScope"];

export interface FinishedSpanInit {
  name: string;
  kind: SpanKind;
  context: SpanContext;
  parentContext: SpanContext | undefined;
  startUs: number;
  endUs: number;
  status: SpanStatus;
  attributes: Attributes;
  events: TimedEvent[];
  resource: Resource;
  scope: InstrumentationScope;
  /** Attributes the span limits removed. */
  droppedAttributesCount?: number;
}

/**
 * A completed span built directly from events (no SDK Tracer): cheaper than driving a tracer
 * with a one-shot id generator, and the ids/times are exactly the ones the events dictate.
 */
export class FinishedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links: Link[] = NO_LINKS;
  readonly events: TimedEvent[];
  readonly ended = true;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;
  private readonly startUs: number;
  private readonly endUs: number;
  // The times as HrTime, made when first read: a span that no exporter encodes never needs them.
  private startHr: HrTime | undefined;
  private endHr: HrTime | undefined;

  constructor(init: FinishedSpanInit) {
    this.name = init.name;
    this.kind = init.kind;
    this.context = init.context;
    this.parentSpanContext = init.parentContext;
    this.startUs = init.startUs;
    this.endUs = Math.max(init.endUs, init.startUs);
    this.status = init.status;
    this.attributes = init.attributes;
    this.events = init.events;
    this.resource = init.resource;
    this.instrumentationScope = init.scope;
    this.droppedAttributesCount = init.droppedAttributesCount ?? 0;
  }

  get startTime(): HrTime {
    return (this.startHr ??= hrTimeFromMicros(this.startUs));
  }

  get endTime(): HrTime {
    return (this.endHr ??= hrTimeFromMicros(this.endUs));
  }

  get duration(): HrTime {
    return hrTimeFromMicros(this.endUs - this.startUs);
  }

  spanContext(): SpanContext {
    return this.context;
  }
}
