// The samplers relaytrace builds from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG are its own
// (its pipeline does not load @opentelemetry/sdk-trace); they must decide exactly as the SDK's
// samplers of the same name, and describe themselves the same way. Checked side by side with the
// SDK's on random trace ids and parents, ids on the ratio's bound, and malformed ids.
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Context, type SpanContext } from "@opentelemetry/api";
import * as sdk from "@opentelemetry/sdk-trace";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { samplerFromEnv, type EnvProblem } from "../../exporters/otel/env.js";
import * as own from "../../exporters/otel/samplers.js";

afterEach(() => vi.unstubAllEnvs());

interface Decider {
  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: object, links: []): { decision: number };
  toString(): string;
}

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const traceIds = fc.oneof(
  { weight: 8, arbitrary: hex(32) },
  { weight: 1, arbitrary: hex(32).map((id) => id.toUpperCase()) },
  // malformed: short, long, not hex, all zeros
  { weight: 1, arbitrary: fc.constantFrom("", "abc", "0".repeat(32), "g".repeat(32), `${"a".repeat(31)}-`, "f".repeat(33)) },
);

/** No parent, an invalid one, and remote or local parents sampled or not. */
const parents: fc.Arbitrary<SpanContext | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({
    traceId: fc.oneof(hex(32), fc.constant("0".repeat(32))),
    spanId: fc.oneof(hex(16), fc.constant("0".repeat(16))),
    traceFlags: fc.constantFrom(TraceFlags.NONE, TraceFlags.SAMPLED, 3),
    isRemote: fc.boolean(),
  }),
);

const ratios = fc.oneof(
  fc.constantFrom(0, 1, 0.5, 0.25, 1e-9, 0.999999999, -0, -1, 2, Number.NaN, Number.POSITIVE_INFINITY),
  fc.double({ min: 0, max: 1, noNaN: true }),
);

type Kind = "alwaysOn" | "alwaysOff" | "ratio";
interface Shape {
  root: Kind;
  ratio: number;
  /** Wrap in a ParentBased sampler, with these optional deciders for parents set (or the defaults). */
  parentBased:
    false | { remoteParentSampled?: Kind; remoteParentNotSampled?: Kind; localParentSampled?: Kind; localParentNotSampled?: Kind };
}

const kinds = fc.constantFrom<Kind>("alwaysOn", "alwaysOff", "ratio");
const shapes: fc.Arbitrary<Shape> = fc.record({
  root: kinds,
  ratio: ratios,
  parentBased: fc.oneof(
    fc.constant(false as const),
    fc.record(
      { remoteParentSampled: kinds, remoteParentNotSampled: kinds, localParentSampled: kinds, localParentNotSampled: kinds },
      { requiredKeys: [] },
    ),
  ),
});

function build(lib: typeof own | typeof sdk, shape: Shape): Decider {
  const leaf = (kind: Kind): Decider =>
    kind === "alwaysOn"
      ? new lib.AlwaysOnSampler()
      : kind === "alwaysOff"
        ? new lib.AlwaysOffSampler()
        : new lib.TraceIdRatioBasedSampler(shape.ratio);
  if (shape.parentBased === false) return leaf(shape.root);
  const config: Record<string, Decider> = { root: leaf(shape.root) };
  for (const [key, kind] of Object.entries(shape.parentBased)) config[key] = leaf(kind);
  return new lib.ParentBasedSampler(config as never) as Decider;
}

const contextOf = (parent: SpanContext | undefined) => (parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT);

describe("relaytrace's standard samplers", () => {
  it("decide as the SDK's on random trace ids, parents and ratios, and describe themselves alike", () => {
    fc.assert(
      fc.property(shapes, traceIds, parents, (shape, traceId, parent) => {
        const ours = build(own, shape);
        const theirs = build(sdk, shape);
        const context = contextOf(parent);
        expect(ours.shouldSample(context, traceId, "span", SpanKind.INTERNAL, {}, [])).toEqual(
          theirs.shouldSample(context, traceId, "span", SpanKind.INTERNAL, {}, []),
        );
        expect(ours.toString()).toBe(theirs.toString());
      }),
      { numRuns: 20_000 },
    );
  });

  it("decide as the SDK's for trace ids right at the ratio's bound", () => {
    fc.assert(
      fc.property(ratios, fc.integer({ min: -2, max: 2 }), fc.nat(3), (ratio, offset, word) => {
        // A trace id whose 32-bit words XOR to the bound (± offset): three words of zeros and one holding it.
        const bound = Math.floor(Math.min(1, Math.max(0, Number.isNaN(ratio) ? 0 : ratio)) * 0xffffffff);
        const value = Math.min(0xffffffff, Math.max(1, bound + offset));
        const words = ["00000000", "00000000", "00000000", "00000000"];
        words[word] = value.toString(16).padStart(8, "0");
        const traceId = words.join("");
        const ours = new own.TraceIdRatioBasedSampler(ratio).shouldSample(ROOT_CONTEXT, traceId);
        const theirs = new sdk.TraceIdRatioBasedSampler(ratio).shouldSample(ROOT_CONTEXT, traceId);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG", () => {
  const settings: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ["always_on", undefined],
    ["always_off", undefined],
    ["parentbased_always_on", undefined],
    ["parentbased_always_off", undefined],
    ["traceidratio", "0.25"],
    ["traceidratio", "0"],
    ["traceidratio", "1"],
    ["traceidratio", undefined],
    ["traceidratio", "1.5"],
    ["traceidratio", "-0.1"],
    ["traceidratio", "half"],
    ["parentbased_traceidratio", "0.125"],
    ["parentbased_traceidratio", undefined],
    ["jaeger_remote", undefined],
  ];

  it.each(settings)("%s (arg %s) builds the sampler OpenTelemetry's SDK builds", (name, arg) => {
    vi.stubEnv("OTEL_TRACES_SAMPLER", name);
    vi.stubEnv("OTEL_TRACES_SAMPLER_ARG", arg);
    const ours = samplerFromEnv([] as EnvProblem[]);
    // The SDK's provider reads the same variables when given no sampler; its tracer holds what it built.
    const theirs = (new BasicTracerProvider().getTracer("t") as unknown as { _sampler: Decider })._sampler;
    expect(ours.toString()).toBe(theirs.toString());
  });
});
