import {
  ROOT_CONTEXT,
  SamplingDecision,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type Link,
  type SpanContext,
  type SpanKind,
} from "@opentelemetry/api";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { ResolvedParent } from "./span-registry.js";

/**
 * What relaytrace asks of a sampler: an OpenTelemetry `Sampler` of SDK 2.x or 3.x fits. Declared
 * here rather than taken from the SDK so that a sampler built on another \@opentelemetry/api copy
 * type-checks too (SDK 3 needs api 1.10, relaytrace's own OpenTelemetry packages an earlier one, so
 * an app on SDK 3 has both); only the decision is read, as a number (`SamplingDecision`).
 */
export interface TraceSampler {
  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): { readonly decision: number };
}

/**
 * The sampling decision of a new span, as trace flags. A span with a parent in this exporter
 * inherits the parent's decision, so every span of a trace shares one. Only a trace root asks
 * the sampler: with the app's span as parent when the trace continues one (a parent-based sampler
 * then follows the app), and as a root otherwise, also when it continues a relaytrace trace from
 * a propagation context (a resumed run): the flags of that remote parent are not known, and a
 * trace-id-ratio sampler gives the resumed part the same decision its first part got.
 */
export function sampleSpan(
  sampler: TraceSampler,
  parent: ResolvedParent | undefined,
  appParent: SpanContext | undefined,
  traceId: string,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  counter: DiagnosticCounter,
): TraceFlags {
  if (parent !== undefined && parent.context !== appParent && parent.context.isRemote !== true)
    return parent.context.traceFlags & TraceFlags.SAMPLED;
  // The app's span and a caller's W3C parent are asked about; relaytrace's own propagated parent
  // (a resume) is not, so a ratio gives the same answer.
  const asked = parent !== undefined && (parent.context === appParent || parent.fromCaller === true);
  const context = asked ? trace.setSpanContext(ROOT_CONTEXT, parent.context) : ROOT_CONTEXT;
  try {
    const result = sampler.shouldSample(context, traceId, name, kind, attributes, []);
    return result.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
  } catch (error) {
    counter.recordError("otel.sampler_failed", error);
    return TraceFlags.SAMPLED;
  }
}
