import { TraceFlags, createTraceState, type SpanContext } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import { parseTraceparent, TRACEPARENT_KEY, TRACESTATE_KEY } from "../../src/events/traceparent.js";

/**
 * The remote OpenTelemetry parent a trace root's start event recorded (metadata `otel.traceparent`,
 * `otel.tracestate`): the app's span the relaytrace trace continues. Read from the event itself, so
 * converting a file later yields the same parent as the live export did.
 */
export function recordedRemoteParent(metadata: Json): SpanContext | undefined {
  if (!isJsonObject(metadata)) return undefined;
  const text = metadata[TRACEPARENT_KEY];
  if (typeof text !== "string") return undefined;
  const state = metadata[TRACESTATE_KEY];
  const parent = parseTraceparent(text, typeof state === "string" ? state : undefined);
  if (parent === undefined) return undefined;
  const context: SpanContext = {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.traceFlags === 1 ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  };
  if (parent.tracestate !== undefined) context.traceState = createTraceState(parent.tracestate);
  return context;
}
