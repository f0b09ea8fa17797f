import type { TracerProvider } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import type { TraceSampler } from "./sampling.js";

/** What relaytrace takes from the app's TracerProvider: its resource, span processors, sampler and limits. */
export interface AppPipeline {
  resource: Resource;
  processor: SpanProcessor;
  sampler: TraceSampler | undefined;
  limits: { valueLength?: number; count?: number };
}

interface SdkTracerShape {
  _resource?: Resource;
  _spanProcessor?: SpanProcessor;
  _sampler?: TraceSampler;
  _spanLimits?: { attributeValueLengthLimit?: number; attributeCountLimit?: number };
}

const NOT_SDK =
  "tracerProvider must be an OpenTelemetry JS SDK 2.x or 3.x TracerProvider " +
  "(2.x NodeTracerProvider or BasicTracerProvider, 3.x TracerProvider, or the global provider a started NodeSDK registered)";

/**
 * Reads the pipeline of an SDK 2.x or 3.x provider (their tracers keep the same fields) through the
 * tracer it hands out. relaytrace builds its spans from events (their ids come from event uuids,
 * which the SDK's Tracer cannot take), so it hands finished spans straight to the provider's
 * processors instead of starting them on a tracer.
 * A global `ProxyTracerProvider` is unwrapped to the provider registered behind it.
 */
export function appPipelineOf(provider: TracerProvider, scope: { name: string; version: string }): AppPipeline {
  if (typeof provider !== "object" || provider === null || typeof provider.getTracer !== "function") {
    throw new TypeError(`OtelExporter: ${NOT_SDK}`);
  }
  const proxied = provider as TracerProvider & { getDelegate?: () => TracerProvider };
  const real = typeof proxied.getDelegate === "function" ? proxied.getDelegate() : provider;
  const tracer = real.getTracer(scope.name, scope.version) as unknown as SdkTracerShape;
  const processor = tracer._spanProcessor;
  const resource = tracer._resource;
  if (!processor || typeof processor.onEnd !== "function" || !resource || typeof resource.attributes !== "object") {
    throw new TypeError(`OtelExporter: ${NOT_SDK}; got one without an SDK span pipeline (is the SDK started?)`);
  }
  const limits: { valueLength?: number; count?: number } = {};
  const length = tracer._spanLimits?.attributeValueLengthLimit;
  const count = tracer._spanLimits?.attributeCountLimit;
  if (typeof length === "number" && Number.isFinite(length)) limits.valueLength = length;
  if (typeof count === "number" && Number.isFinite(count)) limits.count = count;
  return { resource, processor, sampler: tracer._sampler, limits };
}
