import { META_STATUS_CODE, META_STATUS_DESCRIPTION } from "../../src/events/wire-names.js";
import { SpanStatusCode, type SpanStatus } from "@opentelemetry/api";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import { hrTimeFromMicros } from "./ids.js";
import type { OpenSpan } from "./open-span.js";
import { ERROR_TYPE, ERROR_TYPE_OTHER, EXCEPTION_TYPE } from "./semconv.js";

export const STATUS_CODE_KEY = META_STATUS_CODE;
export const STATUS_DESCRIPTION_KEY = META_STATUS_DESCRIPTION;

/** The span status an end event's metadata asks for. */
export function statusOf(metadata: Json, diagnostics: DiagnosticCounter): SpanStatus {
  const code = isJsonObject(metadata) ? metadata[STATUS_CODE_KEY] : undefined;
  if (code === "OK") return { code: SpanStatusCode.OK };
  if (code === "ERROR") {
    const description = isJsonObject(metadata) ? metadata[STATUS_DESCRIPTION_KEY] : undefined;
    return { code: SpanStatusCode.ERROR, message: typeof description === "string" ? description : "" };
  }
  if (code !== undefined && code !== null && code !== "UNSET") {
    diagnostics.record("otel.invalid_status_code", `unknown otel.status_code ${JSON.stringify(code)}; span left UNSET`);
  }
  return { code: SpanStatusCode.UNSET };
}

function stringKey(metadata: Json, key: string): string | undefined {
  if (!isJsonObject(metadata)) return undefined;
  const value = metadata[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Applies the error outcome to a span that ends in ERROR: `error.type` (when the projection
 * writes it), the `exception` event, and hands the classes up to the open parent so an errored
 * parent without its own keys inherits them.
 */
export function applyErrorOutcome(span: OpenSpan, metadata: Json, endUs: number, writeErrorType: boolean): void {
  const errorType = stringKey(metadata, ERROR_TYPE) ?? span.childErrorType;
  const exceptionType = stringKey(metadata, EXCEPTION_TYPE) ?? span.childExceptionType;
  if (writeErrorType) span.attributes[ERROR_TYPE] = errorType ?? ERROR_TYPE_OTHER;
  if (exceptionType !== undefined) {
    span.events.push({
      name: "exception",
      time: hrTimeFromMicros(endUs),
      attributes: { [EXCEPTION_TYPE]: exceptionType },
      droppedAttributesCount: 0,
    });
  }
  const parent = span.parentSpan;
  if (parent && !parent.ended) {
    if (errorType !== undefined) parent.childErrorType ??= errorType;
    if (exceptionType !== undefined) parent.childExceptionType ??= exceptionType;
  }
}

/** The `error.type` of a failed end (metadata), `_OTHER` when it names none. */
export function errorTypeOf(metadata: Json): string {
  return stringKey(metadata, ERROR_TYPE) ?? ERROR_TYPE_OTHER;
}
