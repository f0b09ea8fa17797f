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
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly duration: HrTime;
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

  constructor(init: FinishedSpanInit) {
    this.name = init.name;
    this.kind = init.kind;
    this.context = init.context;
    this.parentSpanContext = init.parentContext;
    this.startTime = hrTimeFromMicros(init.startUs);
    const endUs = Math.max(init.endUs, init.startUs);
    this.endTime = hrTimeFromMicros(endUs);
    this.duration = hrTimeFromMicros(endUs - init.startUs);
    this.status = init.status;
    this.attributes = init.attributes;
    this.events = init.events;
    this.resource = init.resource;
    this.instrumentationScope = init.scope;
    this.droppedAttributesCount = init.droppedAttributesCount ?? 0;
  }

  spanContext(): SpanContext {
    return this.context;
  }
}
