import type { Attributes, SpanContext } from "@opentelemetry/api";
import { isJsonObject } from "../../src/events/json.js";
import { eventMicros } from "../../src/events/timestamp.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { META_STATUS_DESCRIPTION } from "../../src/events/wire-names.js";
import type { OpenSpan } from "./open-span.js";
import { ERROR_TYPE, ERROR_TYPE_OTHER, EXCEPTION_MESSAGE, EXCEPTION_TYPE } from "./semconv.js";
import { GEN_AI_CLIENT_OPERATION_EXCEPTION } from "./semconv.js";
import { GEN_AI_CLIENT_INFERENCE_EXCEPTION } from "./semconv-genai-0.1.js";

/** The logs API's severity number (1 TRACE … 24 FATAL4), as its value: no logs API package is named. */
export type SeverityNumber = number;

/** A GenAI convention event: a log record with an event name, in the context of the span it belongs to. */
export interface GenAiEventRecord {
  name: string;
  severityNumber: SeverityNumber;
  severityText: string;
  attributes: Attributes;
  /** When it happened (µs since the epoch). */
  us: number;
  context: SpanContext;
}

/** Where the projection hands its events: the logs signal, or a diagnostic when logs are off. */
export type GenAiEventSink = (record: GenAiEventRecord) => void;

/** v1.41's `gen_ai.client.operation.exception` of a failed model or embeddings call. */
export function operationExceptionEvent(end: ScopeEvent, span: OpenSpan): GenAiEventRecord {
  return exceptionEvent(GEN_AI_CLIENT_OPERATION_EXCEPTION, end, span);
}

/** v0.1.0's `gen_ai.client.inference.exception` of a failed model call. */
export function inferenceExceptionEvent(end: ScopeEvent, span: OpenSpan): GenAiEventRecord {
  return exceptionEvent(GEN_AI_CLIENT_INFERENCE_EXCEPTION, end, span);
}

/**
 * An exception event (severity WARN, as both versions ask): the error's class and the status
 * description the span carries as its message.
 */
function exceptionEvent(name: string, end: ScopeEvent, span: OpenSpan): GenAiEventRecord {
  const metadata = isJsonObject(end.metadata) ? end.metadata : {};
  const type = metadata[EXCEPTION_TYPE] ?? metadata[ERROR_TYPE];
  const message = metadata[META_STATUS_DESCRIPTION];
  const attributes: Attributes = {};
  if (typeof type === "string" && type !== "") attributes[EXCEPTION_TYPE] = type;
  if (typeof message === "string" && message !== "") attributes[EXCEPTION_MESSAGE] = message;
  // One of type and message is required; an error that names neither gets the conventions' fallback class.
  if (Object.keys(attributes).length === 0) attributes[EXCEPTION_TYPE] = ERROR_TYPE_OTHER;
  let us = span.startUs;
  try {
    us = eventMicros(end);
  } catch {
    // an end whose timestamp does not parse keeps the span's start as the record's time
  }
  return {
    name,
    // SeverityNumber.WARN, written as its value: the logs API stays unloaded until an exporter needs it
    severityNumber: 13,
    severityText: "WARN",
    attributes,
    us,
    context: span.context,
  };
}
