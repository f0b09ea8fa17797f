import {
  SamplingDecision,
  TraceFlags,
  isSpanContextValid,
  isValidTraceId,
  trace,
  type Attributes,
  type Context,
  type Link,
  type SpanKind,
} from "@opentelemetry/api";
import type { TraceSampler } from "./sampling.js";

// The four standard samplers that OTEL_TRACES_SAMPLER names, written here so that relaytrace's own
// pipeline does not load @opentelemetry/sdk-trace to build one. Each decides exactly as the SDK's
// sampler of the same name (2.x and 3.x alike) and describes itself with the same toString().

/** A sampler relaytrace builds from the variables: a decision, and the SDK's description of it. */
export interface StandardSampler extends TraceSampler {
  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): { readonly decision: SamplingDecision };
  toString(): string;
}

/** Samples every trace (`always_on`). */
export class AlwaysOnSampler implements StandardSampler {
  shouldSample(): { decision: SamplingDecision } {
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  }

  toString(): string {
    return "AlwaysOnSampler";
  }
}

/** Samples no trace (`always_off`). */
export class AlwaysOffSampler implements StandardSampler {
  shouldSample(): { decision: SamplingDecision } {
    return { decision: SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return "AlwaysOffSampler";
  }
}

/** The trace id's four 32-bit words XORed together: what the SDK compares with the ratio's bound. */
function traceIdWord(traceId: string): number {
  let word = 0;
  for (let i = 0; i < 32; i += 8) word = (word ^ Number.parseInt(traceId.slice(i, i + 8), 16)) >>> 0;
  return word;
}

/**
 * Samples a fixed share of traces, the same ones for the same ratio on every process
 * (`traceidratio`): the decision depends on the trace id only. A ratio that is not a number
 * counts as 0, one outside [0, 1] as the nearer end.
 */
export class TraceIdRatioBasedSampler implements StandardSampler {
  private readonly ratio: number;
  private readonly bound: number;

  constructor(ratio = 0) {
    this.ratio = typeof ratio !== "number" || Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio));
    // 1 takes every 32-bit word; any other ratio scales the largest one, as the SDK does.
    this.bound = this.ratio === 1 ? 0x100000000 : Math.floor(this.ratio * 0xffffffff);
  }

  shouldSample(_context: Context, traceId: string): { decision: SamplingDecision } {
    const sampled = isValidTraceId(traceId) && traceIdWord(traceId) < this.bound;
    return { decision: sampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `TraceIdRatioBased{${this.ratio}}`;
  }
}

/** Which sampler decides for each kind of parent; only `root` is required. */
export interface ParentBasedSamplerConfig {
  root: StandardSampler;
  remoteParentSampled?: StandardSampler;
  remoteParentNotSampled?: StandardSampler;
  localParentSampled?: StandardSampler;
  localParentNotSampled?: StandardSampler;
}

/** Follows the parent's decision (by default); `root` decides for a span without a valid parent. */
export class ParentBasedSampler implements StandardSampler {
  private readonly root: StandardSampler;
  private readonly remoteParentSampled: StandardSampler;
  private readonly remoteParentNotSampled: StandardSampler;
  private readonly localParentSampled: StandardSampler;
  private readonly localParentNotSampled: StandardSampler;

  constructor(config: ParentBasedSamplerConfig) {
    this.root = config.root;
    this.remoteParentSampled = config.remoteParentSampled ?? new AlwaysOnSampler();
    this.remoteParentNotSampled = config.remoteParentNotSampled ?? new AlwaysOffSampler();
    this.localParentSampled = config.localParentSampled ?? new AlwaysOnSampler();
    this.localParentNotSampled = config.localParentNotSampled ?? new AlwaysOffSampler();
  }

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): { readonly decision: SamplingDecision } {
    const parent = trace.getSpanContext(context);
    let decider: StandardSampler;
    if (parent === undefined || !isSpanContextValid(parent)) decider = this.root;
    else if ((parent.traceFlags & TraceFlags.SAMPLED) !== 0) decider = parent.isRemote ? this.remoteParentSampled : this.localParentSampled;
    else decider = parent.isRemote ? this.remoteParentNotSampled : this.localParentNotSampled;
    return decider.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return (
      `ParentBased{root=${this.root.toString()}, remoteParentSampled=${this.remoteParentSampled.toString()}, ` +
      `remoteParentNotSampled=${this.remoteParentNotSampled.toString()}, localParentSampled=${this.localParentSampled.toString()}, ` +
      `localParentNotSampled=${this.localParentNotSampled.toString()}}`
    );
  }
}
