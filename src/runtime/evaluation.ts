import type { JsonObject } from "../events/json.js";
import { currentScopeContext, type ScopeContext, type ScopeHandle } from "../events/scope-stack.js";
import { formatTraceparent, TRACEPARENT_KEY } from "../events/traceparent.js";
import { MARK_EVALUATION, SCHEMA_EVALUATION } from "../events/wire-names.js";
import { RelaytraceError } from "./errors.js";
import { declareOptions, is } from "../events/option-spec.js";
import { remoteParentUuids, traceRootUuid } from "./otel-context.js";
import { traceFlagsIn, traceparentOf } from "./propagation.js";
import type { RuntimeCore } from "./runtime-core.js";
import { TRACE_ROOT } from "./trace-root.js";

/** The data schema of an evaluation mark. */
export const EVALUATION_SCHEMA = Object.freeze({ name: SCHEMA_EVALUATION, version: "1" });
/** The mark's name: the GenAI conventions' event name, which the OTel logs signal carries. */
export const EVALUATION_EVENT = MARK_EVALUATION;

/** A span recorded elsewhere (another process, a trace read from a backend), by its W3C ids. */
export interface SpanIds {
  traceId: string;
  spanId: string;
}

/** A score or label for a run or one of its steps: from a judge model, a user's thumbs-down, a CI eval. */
export interface Evaluation {
  /** What was evaluated for: `relevance`, `user_feedback`, `task_success`. */
  name: string;
  score?: number;
  label?: string;
  explanation?: string;
  /** The scope, tool or LLM call evaluated (its handle), or a span by ids; default: where the code is now. */
  target?: Pick<ScopeHandle, "uuid"> | SpanIds;
}

const EVALUATION = declareOptions<Evaluation>(
  "recordEvaluation",
  {
    name: is.required(is.nonEmptyString),
    score: is.finiteNumber,
    label: is.nonEmptyString,
    explanation: is.string,
    target: is.anything, // checked by targetOf, which names the wrong part
  },
  { error: (message) => new RelaytraceError("invalid_argument", message) },
);
const HEX = /^[0-9a-f]+$/;

function invalid(field: string, what: string): RelaytraceError {
  return new RelaytraceError("invalid_argument", `recordEvaluation: ${field} must be ${what}`);
}

function hexId(value: unknown, field: string, length: number): string {
  if (typeof value !== "string" || value.length !== length || !HEX.test(value) || /^0+$/.test(value)) {
    throw invalid(field, `${length} lowercase hex digits, not all zero`);
  }
  return value;
}

/** Where an evaluation points: the target's uuid, and its traceparent when the runtime knows the trace. */
function targetOf(target: Evaluation["target"]): { parentUuid: string; traceparent?: string } {
  const context = currentScopeContext();
  if (target === undefined) {
    return inTrace(context, context.activeEventUuid ?? context.stack.top().uuid, traceRootUuid(context));
  }
  if (typeof target !== "object" || target === null) throw invalid("target", "a scope handle or { traceId, spanId }");
  if ("traceId" in target || "spanId" in target) {
    const ids = target as Partial<SpanIds>;
    const traceId = hexId(ids.traceId, "target.traceId", 32);
    const spanId = hexId(ids.spanId, "target.spanId", 16);
    // The uuid the exporters turn back into these ids (trace id prefix + span id).
    return { parentUuid: remoteParentUuids(traceId, spanId).parentUuid, traceparent: formatTraceparent(traceId, spanId, 1) };
  }
  const uuid = (target as { uuid?: unknown }).uuid;
  if (typeof uuid !== "string" || uuid === "") throw invalid("target", "a scope handle or { traceId, spanId }");
  return inTrace(context, uuid, traceRootOfHandle(target) ?? traceRootUuid(context));
}

/** `uuid` as a target, with its traceparent in the trace rooted at `root` (the caller's flags kept) when that is known. */
function inTrace(context: ScopeContext, uuid: string, root: string | undefined): { parentUuid: string; traceparent?: string } {
  return root === undefined
    ? { parentUuid: uuid }
    : { parentUuid: uuid, traceparent: traceparentOf(root, uuid, traceFlagsIn(context, root)) };
}

/** The trace root a scope handle was opened in (`TRACE_ROOT`), so an evaluation made after it ended still names its trace. */
function traceRootOfHandle(handle: object): string | undefined {
  return (handle as { [TRACE_ROOT]?: string })[TRACE_ROOT];
}

/** Checks an evaluation and emits it as an `relaytrace.evaluation` mark; returns the mark's uuid. */
export function recordEvaluation(core: RuntimeCore, evaluation: Evaluation): string {
  EVALUATION.check(evaluation);
  const { name, score, label, explanation } = evaluation;
  const target = targetOf(evaluation.target);
  const data: JsonObject = { name };
  if (score !== undefined) data.score = score;
  if (label !== undefined) data.label = label;
  if (explanation !== undefined) data.explanation = explanation;
  const timestampUs = core.nowUs();
  const uuid = core.idFor(timestampUs, undefined);
  core.emitMark(currentScopeContext().stack, {
    uuid,
    parentUuid: target.parentUuid,
    timestampUs,
    name: EVALUATION_EVENT,
    category: null,
    profile: null,
    data,
    dataSchema: EVALUATION_SCHEMA,
    metadata: target.traceparent === undefined ? null : { [TRACEPARENT_KEY]: target.traceparent },
  });
  return uuid;
}
