import { ROOT_CONTEXT, SamplingDecision, TraceFlags, trace, type Attributes, type SpanContext, type SpanKind } from "@opentelemetry/api";
import type { Sampler } from "@opentelemetry/sdk-trace-base";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import type { ResolvedParent } from "./span-registry.js";

/**
 * The sampling decision of a new span, as trace flags. A span with a parent in this exporter
 * inherits the parent's decision, so every span of a trace shares one. Only a trace root asks
 * the sampler: with the app's span as parent when the trace continues one (a parent-based sampler
 * then follows the app), and as a root otherwise, also when it continues a relaytrace trace from
 * a propagation context (a resumed run): the flags of that remote parent are not known, and a
 * trace-id-ratio sampler gives the resumed part the same decision its first part got.
 */
export function sampleSpan(
  sampler: Sampler,
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
