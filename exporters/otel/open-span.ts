import type { Attributes, SpanContext, SpanKind } from "@opentelemetry/api";
import type { TimedEvent } from "@opentelemetry/sdk-trace";
import type { Category, ScopeEvent } from "../../src/events/types.js";

/** A span between its start and end event: mutable until it is finished. */
export interface OpenSpan {
  readonly uuid: string;
  name: string;
  kind: SpanKind;
  readonly category: string;
  /** scopeTypeOf(category), computed once. */
  readonly scopeType: Category;
  readonly context: SpanContext;
  readonly parentContext: SpanContext | undefined;
  /** The parent span when it was open at our start (for error/provider propagation upward). */
  readonly parentSpan: OpenSpan | undefined;
  readonly isTraceRoot: boolean;
  readonly startUs: number;
  readonly start: ScopeEvent;
  readonly attributes: Attributes;
  readonly events: TimedEvent[];
  /** First error/exception class recorded by a failed descendant; an ancestor failing without its own class reuses it. */
  childErrorType?: string;
  childExceptionType?: string;
  ended: boolean;
}
