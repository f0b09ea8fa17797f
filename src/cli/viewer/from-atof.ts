import { isJsonObject, type Json } from "../../events/json.js";
import { parseTimestamp } from "../../events/timestamp.js";
import type { AtofEvent, MarkEvent, ScopeEvent } from "../../events/types.js";
import { idHex } from "../../../exporters/otel/ids.js";
import { STATUS_CODE_KEY, STATUS_DESCRIPTION_KEY } from "../../../exporters/otel/status.js";
import { modelOf, requestMessages, responseMessages, usageOf } from "./conversation.js";
import type { ViewError, ViewEvaluation, ViewMark, ViewSpan, ViewStatus } from "./model.js";

/** The data schema of the mark a suspended tool call emits with its request. */
const PENDING_REQUEST_SCHEMA = "relaytrace.pending_request";
const RETRY_OF_KEY = "relaytrace.retry_of";
/** The data schema of an evaluation mark (`runtime.recordEvaluation`). */
const EVALUATION_SCHEMA = "relaytrace.evaluation";
const TRACEPARENT_KEY = "otel.traceparent";

/** An evaluation mark's data as the viewer shows it; undefined when it has no name. */
function evaluationOf(data: Json): ViewEvaluation | undefined {
  if (!isJsonObject(data) || typeof data["name"] !== "string" || data["name"] === "") return undefined;
  const evaluation: ViewEvaluation = { name: data["name"] };
  const { score, label, explanation } = data;
  if (typeof score === "number" && Number.isFinite(score)) evaluation.score = score;
  if (typeof label === "string" && label !== "") evaluation.label = label;
  if (typeof explanation === "string" && explanation !== "") evaluation.explanation = explanation;
  return evaluation;
}

/** The span id a mark's `otel.traceparent` names (an evaluation of a span by its ids). */
function traceparentSpanId(metadata: Json): string | undefined {
  const value = metaString(metadata, TRACEPARENT_KEY);
  const match = value === undefined ? null : /^[0-9a-f]{2}-[0-9a-f]{32}-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(value);
  return match?.[1];
}

interface ScopeRecord {
  uuid: string;
  parentUuid: string | null;
  start?: ScopeEvent;
  end?: ScopeEvent;
  startUs: number;
  endUs: number;
  source: string;
}

interface MarkRecord {
  event: MarkEvent;
  us: number;
}

function metaString(metadata: Json | undefined, key: string): string | undefined {
  if (!isJsonObject(metadata)) return undefined;
  const value = metadata[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function profileString(event: ScopeEvent | undefined, key: string): string | undefined {
  const profile = event?.category_profile;
  if (!isJsonObject(profile)) return undefined;
  const value = profile[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Collects ATOF events (any order, several files) into viewer spans. Span and trace ids are
 * derived from the uuids exactly as the OTel exporter derives them, so a row's `data-span-id`
 * is the id the same span has in Jaeger.
 */
export class AtofSpanCollector {
  private readonly scopes = new Map<string, ScopeRecord>();
  private readonly marks: MarkRecord[] = [];
  private lastUs = 0;
  private duplicateStarts = 0;

  add(event: AtofEvent, source: string): void {
    const us = parseTimestamp(event.timestamp);
    if (us > this.lastUs) this.lastUs = us;
    if (event.kind === "mark") {
      this.marks.push({ event, us });
      return;
    }
    let record = this.scopes.get(event.uuid);
    if (event.scope_category === "start") {
      if (record?.start) {
        this.duplicateStarts++;
        return;
      }
      if (!record) {
        record = { uuid: event.uuid, parentUuid: event.parent_uuid, startUs: us, endUs: us, source };
        this.scopes.set(event.uuid, record);
      }
      record.start = event;
      record.startUs = us;
      record.parentUuid = event.parent_uuid;
    } else {
      if (!record) {
        record = { uuid: event.uuid, parentUuid: event.parent_uuid, startUs: us, endUs: us, source };
        this.scopes.set(event.uuid, record);
      }
      if (record.end) return; // a second end changes nothing, as in the exporter
      record.end = event;
      record.endUs = us;
    }
  }

  /** What was repaired while reading, for the page's header. */
  notes(): string[] {
    const notes: string[] = [];
    let unended = 0;
    let endsWithoutStart = 0;
    for (const r of this.scopes.values()) {
      if (!r.end) unended++;
      if (!r.start) endsWithoutStart++;
    }
    if (unended > 0) notes.push(`${unended} span${unended === 1 ? "" : "s"} without an end event (drawn to the last event, status ERROR)`);
    if (endsWithoutStart > 0)
      notes.push(`${endsWithoutStart} end event${endsWithoutStart === 1 ? "" : "s"} without a start (shown from the end time)`);
    if (this.duplicateStarts > 0)
      notes.push(`${this.duplicateStarts} repeated start event${this.duplicateStarts === 1 ? "" : "s"} ignored`);
    return notes;
  }

  spans(): ViewSpan[] {
    const traceOf = this.traceIds();
    const spans = new Map<string, ViewSpan>();
    for (const r of this.scopes.values()) spans.set(r.uuid, this.toSpan(r, traceOf));
    const bySpanId = new Map<string, ViewSpan>();
    for (const span of spans.values()) bySpanId.set(span.id, span);
    for (const { event, us } of this.marks) {
      const evaluation = event.data_schema?.name === EVALUATION_SCHEMA ? evaluationOf(event.data) : undefined;
      let parent = event.parent_uuid !== null ? spans.get(event.parent_uuid) : undefined;
      // An evaluation of a span by its ids: the span its traceparent names, when it is in the input.
      if (parent === undefined && evaluation !== undefined) parent = bySpanId.get(traceparentSpanId(event.metadata) ?? "");
      const record = event.parent_uuid !== null ? this.scopes.get(event.parent_uuid) : undefined;
      const schema = event.data_schema?.name;
      const mark: ViewMark = {
        id: idHex(event.uuid).slice(16),
        name: event.name,
        time: us,
        pending: schema === PENDING_REQUEST_SCHEMA || (record?.end !== undefined && us >= record.endUs),
        category: event.category,
        data: event.data,
        metadata: event.metadata,
      };
      if (parent) {
        parent.marks.push(mark);
        if (evaluation !== undefined) (parent.evaluations ??= []).push(evaluation);
        if (schema === PENDING_REQUEST_SCHEMA) parent.suspended = true;
        continue;
      }
      // A mark whose parent is not in the input is a row of its own, like the exporter's orphan mark span.
      const hex = idHex(event.uuid);
      spans.set(event.uuid, {
        id: hex.slice(16),
        traceId: hex,
        parentId: null,
        name: `mark:${event.name}`,
        kind: "mark",
        status: "UNSET",
        start: us,
        end: us,
        flags: [],
        input: null,
        output: event.data,
        marks: [mark],
        ...(evaluation !== undefined ? { evaluations: [evaluation] } : {}),
        metadata: event.metadata,
        source: "",
      });
    }
    return [...spans.values()];
  }

  /** Trace id per scope uuid: the root ancestor's id, resolved without recursion (cycles end a chain). */
  private traceIds(): Map<string, string> {
    const traceOf = new Map<string, string>();
    const path: string[] = [];
    const onPath = new Set<string>();
    for (const uuid of this.scopes.keys()) {
      let cursor: string | null = uuid;
      let trace: string | undefined;
      while (cursor !== null) {
        const known = traceOf.get(cursor);
        if (known !== undefined) {
          trace = known;
          break;
        }
        const parent: string | null = this.scopes.get(cursor)?.parentUuid ?? null;
        path.push(cursor);
        onPath.add(cursor);
        if (parent === null || !this.scopes.has(parent) || onPath.has(parent)) {
          trace = idHex(cursor);
          break;
        }
        cursor = parent;
      }
      for (const p of path) traceOf.set(p, trace ?? idHex(uuid));
      path.length = 0;
      onPath.clear();
    }
    return traceOf;
  }

  private toSpan(r: ScopeRecord, traceOf: Map<string, string>): ViewSpan {
    const head = r.start ?? r.end!;
    const category = (head.category ?? "unknown").toLowerCase();
    const endMeta = r.end?.metadata ?? null;
    const code = metaString(endMeta, STATUS_CODE_KEY);
    let status: ViewStatus = code === "OK" ? "OK" : code === "ERROR" ? "ERROR" : "UNSET";
    const unended = r.end === undefined;
    if (unended) status = "ERROR";
    let error: ViewError | undefined;
    if (status === "ERROR") {
      error = {};
      const message = unended ? "no end event in the input" : metaString(endMeta, STATUS_DESCRIPTION_KEY);
      if (message) error.message = message;
      const errorType = metaString(endMeta, "error.type");
      if (errorType) error.errorType = errorType;
      const exceptionType = metaString(endMeta, "exception.type");
      if (exceptionType) error.exceptionType = exceptionType;
    }
    const input = r.start?.data ?? null;
    const output = r.end?.data ?? null;
    const parentUuid = r.parentUuid;
    const span: ViewSpan = {
      id: idHex(r.uuid).slice(16),
      traceId: traceOf.get(r.uuid) ?? idHex(r.uuid),
      parentId: parentUuid !== null && parentUuid !== r.uuid && this.scopes.has(parentUuid) ? idHex(parentUuid).slice(16) : null,
      name: head.name,
      kind: category,
      status,
      start: r.startUs,
      end: unended ? Math.max(this.lastUs, r.startUs) : r.endUs,
      flags: Array.isArray(head.attributes) ? head.attributes.filter((a): a is string => typeof a === "string") : [],
      input,
      output,
      marks: [],
      metadata: { start: r.start?.metadata ?? null, end: endMeta },
      source: r.source,
    };
    if (unended) span.unended = true;
    if (error) span.error = error;
    const toolCallId = profileString(r.start, "tool_call_id") ?? profileString(r.end, "tool_call_id");
    if (toolCallId) span.toolCallId = toolCallId;
    const annotation = r.end?.category_profile?.["tool_result_annotation"];
    if (annotation !== undefined && annotation !== null) {
      span.annotation = annotation;
      if (isJsonObject(annotation) && annotation["pending"] !== undefined) span.suspended = true;
    }
    const retryOf = metaString(r.start?.metadata, RETRY_OF_KEY);
    if (retryOf && this.scopes.has(retryOf)) span.resumes = idHex(retryOf).slice(16);
    if (category === "llm") {
      const requestHint = { dataSchema: r.start?.data_schema ?? null, name: head.name };
      const responseHint = { dataSchema: r.end?.data_schema ?? r.start?.data_schema ?? null, name: head.name };
      const model = modelOf(input, output, requestHint) ?? profileString(r.end, "model_name") ?? profileString(r.start, "model_name");
      if (model) span.model = model;
      const usage = usageOf(output, responseHint);
      if (usage) span.usage = usage;
      const messages = [...requestMessages(input, requestHint), ...responseMessages(output, responseHint)];
      if (messages.length > 0) span.messages = messages;
    }
    return span;
  }
}
