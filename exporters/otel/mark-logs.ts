import { ROOT_CONTEXT, trace, type Attributes, type SpanContext } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { LoggerProvider, LogRecordExporter, ReadableLogRecord } from "@opentelemetry/sdk-logs";
import type { SeverityNumber } from "./gen-ai-events.js";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { MarkEvent } from "../../src/events/types.js";
import { severityKey } from "../../src/events/wire-names.js";
import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import { attributeKey, jsonText } from "./flatten.js";
import type { InstrumentationScope } from "./finished-span.js";
import { hrTimeFromMicros } from "./ids.js";
import { isEvaluationMark } from "./marks.js";
import { countedExport, type ExportResult } from "./counted-export.js";
import { recordedRemoteParent } from "./remote-parent.js";
import { applySpanLimits, type SpanLimitSettings } from "./span-limits.js";
import type { GenAiEventRecord } from "./gen-ai-events.js";
import type { SignalSdk } from "./signal-sdk.js";

// The logs API's types, taken from the SDK's logger (the logs API is @opentelemetry/api-logs on
// the 0.2xx line and part of @opentelemetry/api from 1.10 on: naming neither package keeps both apps'
// installs whole).
type Logger = ReturnType<LoggerProvider["getLogger"]>;
type LogRecord = Parameters<Logger["emit"]>[0];
type AnyValue = NonNullable<LogRecord["body"]>;
type LogAttributes = NonNullable<LogRecord["attributes"]>;

const LOG_CODES = { failed: "otel.logs_export_failed", lost: "otel.logs_not_exported", what: "log record" };

// The log data model's severity numbers (the first of each range), written out so that this
// module needs no value from the logs API, which Worker bundles hold only on request.
const SEVERITIES: Record<string, [SeverityNumber, string]> = {
  trace: [1, "TRACE"],
  debug: [5, "DEBUG"],
  info: [9, "INFO"],
  warn: [13, "WARN"],
  warning: [13, "WARN"],
  error: [17, "ERROR"],
  fatal: [21, "FATAL"],
};

/** Counts failed log exports in the exporter's diagnostics instead of letting them vanish. */
class CountingLogExporter implements LogRecordExporter {
  constructor(
    private readonly inner: LogRecordExporter,
    private readonly counter: DiagnosticCounter,
  ) {}

  export(logs: ReadableLogRecord[], done: (result: ExportResult) => void): void {
    countedExport((cb) => this.inner.export(logs, cb), logs.length, done, this.counter, LOG_CODES);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The batch log record processor's settings (`OTEL_BLRP_*` and the specification's defaults). */
export interface LogBatchSettings {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
}

/** A JSON value as an OTLP log body (objects become key-value lists, arrays array values). */
function bodyOf(data: Json): AnyValue {
  return data as AnyValue;
}

/**
 * Marks as OTLP log records (the logs signal; NeMo Relay's record shape), and the events a
 * GenAI convention events a projection
 * records for a span (`emitGenAiEvent`). A mark's record: severity from
 * `<ns>.log.severity` (INFO when absent), body = the mark's data, the mark's identity and
 * metadata as `<ns>.*` attributes, and the trace and span ids of the enclosing span, if any.
 * With `captureContent: false` a record has no body, as a mark span has no `<ns>.mark.data`.
 */
export class MarkLogs {
  private readonly provider: LoggerProvider;
  private readonly logger: Logger;

  constructor(
    sdk: SignalSdk["sdkLogs"],
    exporter: LogRecordExporter,
    resource: Resource,
    scope: InstrumentationScope,
    private readonly ns: string,
    counter: DiagnosticCounter,
    private readonly captureContent: boolean,
    batch: LogBatchSettings,
    /** `OTEL_LOGRECORD_ATTRIBUTE_*` / `OTEL_ATTRIBUTE_*`, applied as on spans (JSON text is shortened inside its values). */
    private readonly limits: SpanLimitSettings = {},
  ) {
    this.provider = new sdk.LoggerProvider({
      resource,
      processors: [new sdk.BatchLogRecordProcessor({ exporter: new CountingLogExporter(exporter, counter), ...batch })],
    });
    this.logger = this.provider.getLogger(scope.name, scope.version);
  }

  /** `enclosing`: the span the record belongs to (an evaluation's own target, recorded on the mark, wins). */
  emit(mark: MarkEvent, us: number, enclosing: SpanContext | undefined): void {
    const ns = this.ns;
    const metadata = mark.metadata;
    const severity = isJsonObject(metadata) ? metadata[severityKey(ns)] : undefined;
    const [severityNumber, severityText] =
      SEVERITIES[typeof severity === "string" ? severity.toLowerCase() : "info"] ?? SEVERITIES["info"]!;
    const attributes: LogAttributes = {
      [attributeKey(ns, "atof.version")]: mark.atof_version,
      [attributeKey(ns, "mark.name")]: mark.name,
      [attributeKey(ns, "mark.uuid")]: mark.uuid,
      [attributeKey(ns, "mark.parent_uuid")]: mark.parent_uuid ?? "",
    };
    if (mark.category !== null && mark.category !== undefined) attributes[attributeKey(ns, "mark.category")] = mark.category;
    if (mark.category_profile !== null && mark.category_profile !== undefined) {
      attributes[attributeKey(ns, "mark.category_profile")] = jsonText(mark.category_profile);
    }
    if (metadata !== null && metadata !== undefined) attributes[attributeKey(ns, "mark.metadata")] = jsonText(metadata);
    const evaluated = isEvaluationMark(mark) ? evaluationAttributes(mark, attributes, this.captureContent) : undefined;
    if (evaluated !== undefined) enclosing = evaluated;
    applySpanLimits(attributes as Attributes, this.limits);
    this.logger.emit({
      eventName: mark.name,
      timestamp: hrTimeFromMicros(us),
      severityNumber,
      severityText,
      ...(this.captureContent ? { body: bodyOf(mark.data) } : {}),
      attributes,
      context: enclosing ? trace.setSpanContext(ROOT_CONTEXT, enclosing) : ROOT_CONTEXT,
    });
  }

  /** A GenAI convention event (not a mark) on the same logs signal, in its span's context. */
  emitGenAiEvent(event: GenAiEventRecord): void {
    const attributes = { ...event.attributes };
    applySpanLimits(attributes, this.limits);
    this.logger.emit({
      eventName: event.name,
      timestamp: hrTimeFromMicros(event.us),
      severityNumber: event.severityNumber,
      severityText: event.severityText,
      attributes: attributes as LogAttributes,
      context: trace.setSpanContext(ROOT_CONTEXT, event.context),
    });
  }

  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/**
 * The GenAI conventions' evaluation attributes (`gen_ai.evaluation.name`, `.score.value`,
 * `.score.label`, `.explanation`; the explanation is content, kept only when content is captured)
 * written into `attributes`; returns the evaluated span's context the mark recorded, if any.
 */
function evaluationAttributes(mark: MarkEvent, attributes: LogAttributes, captureContent: boolean): SpanContext | undefined {
  const data = mark.data as JsonObject;
  if (typeof data["name"] === "string") attributes["gen_ai.evaluation.name"] = data["name"];
  if (typeof data["score"] === "number") attributes["gen_ai.evaluation.score.value"] = data["score"];
  if (typeof data["label"] === "string") attributes["gen_ai.evaluation.score.label"] = data["label"];
  if (captureContent && typeof data["explanation"] === "string") attributes["gen_ai.evaluation.explanation"] = data["explanation"];
  return recordedRemoteParent(mark.metadata);
}
