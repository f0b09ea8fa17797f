import type { Attributes, SpanKind } from "@opentelemetry/api";
import type { Category, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import type { OpenSpan } from "./open-span.js";

/**
 * The span vocabulary: `full` (every event field under the private namespace), `openinference`
 * (the OpenInference conventions that Phoenix/Arize read) or `gen_ai` (OTel GenAI conventions only).
 */
export type ProjectionName = "full" | "openinference" | "gen_ai";

/** How a rendered mark span came about: an orphan fallback (no open parent span) or the `tool` mark projection. */
export type MarkSpanMode = "orphan" | "tool";

/** What differs between the three projections; the shared mechanics live in the exporter. */
export interface Projection {
  readonly name: ProjectionName;
  /** gen_ai renders no marks at all. */
  readonly rendersMarks: boolean;
  /** `error.type` is written by full and gen_ai, not openinference. */
  readonly writesErrorType: boolean;
  /** Session identity (`session.id`, `user.id`) on the trace root. */
  readonly writesSessionIdentity: boolean;
  /** `type`: scopeTypeOf(start.category). */
  spanName(start: ScopeEvent, type: Category): string;
  spanKind(start: ScopeEvent, type: Category): SpanKind;
  onStart(start: ScopeEvent, span: OpenSpan): void;
  onEnd(end: ScopeEvent, span: OpenSpan, succeeded: boolean): void;
  /** Extra attributes on a `mark:{name}` span. */
  decorateMarkSpan(mark: MarkEvent, attrs: Attributes, mode: MarkSpanMode): void;
}
