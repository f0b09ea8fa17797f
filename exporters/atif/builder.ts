import { PROFILE_PROMPT, SCHEMA_EVALUATION } from "../../src/events/wire-names.js";
import {
  ANNOTATION_PENDING,
  PROFILE_MODEL_NAME,
  PROFILE_TOOL_CALL_ID,
  PROFILE_TOOL_RESULT_ANNOTATION,
} from "../../src/events/wire-names.js";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { formatTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { cloneJson, isContentPartArray, summarizePayload, unwrapBody } from "./content.js";
import { detectUserTurn, reasoningEffortOf } from "./request.js";
import { responseParts, normalizeArguments } from "./response.js";
import type { AtifMessage, AtifObservationResult, AtifStep, AtifToolCall } from "./types.js";

/** An event with its normalized timestamp and stream position (for the stable sort). */
export interface TimedEvent {
  event: AtofEvent;
  us: number;
  seq: number;
}

/** What the builder needs to know about scopes beyond its own events. */
export interface ScopeInfo {
  uuid: string;
  name: string;
  category: string;
  parentUuid: string | null;
  start?: ScopeEvent;
  end?: ScopeEvent;
}

export interface BuilderContext {
  framework: string;
  includeMarks: boolean;
  scopes: ReadonlyMap<string, ScopeInfo>;
  /** The agent (or fallback root) scope this trajectory is built for. */
  boundaryUuid: string;
  /** The boundary resumes a halted run: its first tool calls were issued by an earlier trajectory. */
  resumed?: boolean;
}

/** A subagent trajectory to reference from the parent step's observation. */
export interface ChildReference {
  uuid: string;
  name: string;
  sessionId: string;
  toolCallId?: string;
}

interface Queued {
  callId?: string;
  result: AtifObservationResult;
  us: number;
}

const seconds = (us: number): number => Math.round(us / 1000) / 1000;
const profileOf = (e: AtofEvent): JsonObject => e.category_profile ?? {};
const stringOr = (v: Json | undefined): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The ATOF → ATIF state machine for one trajectory: current agent step, pending and deferred observations. */
export class TrajectoryBuilder {
  private readonly steps: AtifStep[] = [];
  private current: AtifStep | undefined;
  private pending: Queued[] = [];
  private readonly deferred = new Map<string, Queued[]>();
  private readonly leftovers: Queued[] = [];
  private readonly llmStarts = new Map<string, TimedEvent>();
  private readonly callIdByTool = new Map<string, string>();
  private readonly stepByCallScope = new Map<string, AtifStep>();
  private readonly marks: AtofEvent[] = [];
  /** `runtime.recordEvaluation` marks: kept whatever `includeMarks` says, as `extra.evaluations`. */
  private readonly evaluations: AtofEvent[] = [];
  /** Tool scopes started and not yet ended, in start order, with their call ids. */
  private readonly openTools = new Map<string, string | undefined>();

  constructor(
    private readonly ctx: BuilderContext,
    private readonly llmWithEnd: ReadonlySet<string>,
  ) {}

  process(te: TimedEvent): void {
    const e = te.event;
    if (e.kind === "mark") {
      if (e.data_schema?.name === SCHEMA_EVALUATION && isJsonObject(e.data)) this.evaluations.push(e);
      else if (this.ctx.includeMarks) this.marks.push(e);
      return;
    }
    if (e.category === "llm") {
      if (e.scope_category === "start") this.llmStart(te);
      else this.llmEnd(te);
    } else if (e.category === "tool") {
      if (e.scope_category === "start") this.toolStart(te);
      else this.toolEnd(te);
    }
  }

  private llmStart(te: TimedEvent): void {
    this.flushPending();
    const e = te.event;
    this.llmStarts.set(e.uuid, te);
    const turn = detectUserTurn(e);
    // A start that never ended is shown as a prompt, so a crashed call keeps its input; so is a
    // trajectory's own model call whose request no codec reads.
    const ownUnread = turn.unread === true && e.uuid === this.ctx.boundaryUuid;
    const fresh = turn.fresh || !this.llmWithEnd.has(e.uuid) || ownUnread;
    if (!fresh) return;
    const message: AtifMessage = turn.message ?? (ownUnread ? (summarizePayload(unwrapBody(e.data)) ?? "") : "");
    this.steps.push({ step_id: 0, timestamp: formatTimestamp(te.us), source: "user", message });
  }

  private llmEnd(te: TimedEvent): void {
    this.flushPending();
    const e = te.event as ScopeEvent;
    const start = this.llmStarts.get(e.uuid);
    const parts = responseParts(e);
    const step: AtifStep = { step_id: 0, timestamp: formatTimestamp(te.us), source: "agent", message: parts.message };
    const model =
      parts.model ??
      stringOr(profileOf(e)[PROFILE_MODEL_NAME]) ??
      (start ? stringOr(profileOf(start.event)[PROFILE_MODEL_NAME]) : undefined);
    if (model) step.model_name = model;
    const effort = start ? reasoningEffortOf(start.event) : undefined;
    if (effort !== undefined) step.reasoning_effort = effort;
    if (parts.reasoningContent !== undefined) step.reasoning_content = parts.reasoningContent;
    if (parts.toolCalls.length > 0) step.tool_calls = parts.toolCalls;
    if (parts.metrics) step.metrics = parts.metrics;
    step.llm_call_count = 1;
    step.extra = {
      // Its parent is resolved against the trajectory's lineage once every step is known (ancestry.ts).
      ancestry: { function_id: e.uuid, function_name: e.name },
      invocation: {
        start_timestamp: seconds(start ? start.us : te.us),
        end_timestamp: seconds(te.us),
        invocation_id: e.uuid,
        status: "completed",
        framework: this.ctx.framework,
      },
    };
    // The prompt template the call was made from (`prompt` option), as its start recorded it.
    const prompt = start ? profileOf(start.event)[PROFILE_PROMPT] : undefined;
    if (prompt !== undefined && prompt !== null) step.extra["prompt"] = prompt;
    this.steps.push(step);
    this.current = step;
    this.stepByCallScope.set(e.uuid, step);
    for (const call of step.tool_calls ?? []) {
      const waiting = this.deferred.get(call.tool_call_id);
      if (!waiting) continue;
      this.deferred.delete(call.tool_call_id);
      for (const q of waiting) this.attach(step, q);
    }
  }

  private sameNameCalls(name: string): AtifToolCall[] {
    return (this.current?.tool_calls ?? []).filter((c) => c.function_name === name);
  }

  private toolStart(te: TimedEvent): void {
    const e = te.event as ScopeEvent;
    const fromProfile = stringOr(profileOf(e)[PROFILE_TOOL_CALL_ID]);
    if (!this.current && this.ctx.resumed && fromProfile !== undefined) this.restateResumedCalls(te);
    const sameName = this.sameNameCalls(e.name);
    let id = fromProfile;
    if (id === undefined && sameName.length === 1) id = sameName[0]!.tool_call_id;
    if (id === undefined && this.current && sameName.length === 0) id = e.uuid;
    if (id !== undefined) this.adoptProducerId(id, sameName);
    if (id !== undefined) this.callIdByTool.set(e.uuid, id);
    this.openTools.set(e.uuid, id);
    const step = this.current;
    if (!step || id === undefined) return;
    this.stepByCallScope.set(e.uuid, step);
    const calls = (step.tool_calls ??= []);
    if (calls.some((c) => c.tool_call_id === id)) return;
    // A tool the provider did not list (or a producer without LLM events): record it from the start event.
    const data = e.data;
    const args = isJsonObject(data) ? normalizeArguments(data) : data === null ? {} : { value: cloneJson(data) };
    const extra: JsonObject = { event_uuid: e.uuid, event_name: e.name };
    if (e.parent_uuid !== null) extra["parent_event_uuid"] = e.parent_uuid;
    if (e.metadata !== null) extra["metadata"] = cloneJson(e.metadata);
    calls.push({ tool_call_id: id, function_name: e.name, arguments: args, extra });
  }

  /**
   * A reply without call ids (Gemini) gets ids made up by the decoder; the tool's own id, from its
   * producer, is the one its result cites. When the step lists no call by that id but exactly one
   * call of the tool's name that no tool has claimed yet, that call is this one: it takes the id.
   */
  private adoptProducerId(id: string, sameName: AtifToolCall[]): void {
    if (sameName.some((c) => c.tool_call_id === id)) return;
    const claimed = new Set(this.callIdByTool.values());
    const unclaimed = sameName.filter((c) => !claimed.has(c.tool_call_id));
    if (unclaimed.length === 1) unclaimed[0]!.tool_call_id = id;
  }

  /**
   * A resumed run starts by re-executing calls of the halted turn, which an earlier trajectory's
   * step issued. They are restated on a copied-context agent step (no LLM call), so each result
   * sits on a step that issued its call, in time order.
   */
  private restateResumedCalls(te: TimedEvent): void {
    const step: AtifStep = {
      step_id: 0,
      timestamp: formatTimestamp(te.us),
      source: "agent",
      message: "",
      is_copied_context: true,
      llm_call_count: 0,
      extra: { restated: "tool calls of the halted turn this run resumes" },
    };
    this.steps.push(step);
    this.current = step;
  }

  private toolEnd(te: TimedEvent): void {
    const e = te.event as ScopeEvent;
    this.openTools.delete(e.uuid);
    const profile = profileOf(e);
    const annotation = profile[PROFILE_TOOL_RESULT_ANNOTATION];
    const hasAnnotation = annotation !== undefined && annotation !== null;
    if (e.data === null && !hasAnnotation) return; // an error end without data adds nothing
    let callId = stringOr(profile[PROFILE_TOOL_CALL_ID]) ?? this.callIdByTool.get(e.uuid);
    if (callId === undefined) {
      const same = this.sameNameCalls(e.name);
      if (same.length === 1) callId = same[0]!.tool_call_id;
    }
    const result: AtifObservationResult = {};
    if (callId !== undefined) result.source_call_id = callId;
    const content = toolContent(e.data);
    if (content !== undefined) result.content = content;
    const extra: JsonObject = { event_uuid: e.uuid, event_name: e.name };
    if (e.parent_uuid !== null) extra["parent_event_uuid"] = e.parent_uuid;
    if (e.metadata !== null) extra["metadata"] = cloneJson(e.metadata);
    if (e.data !== null && typeof e.data !== "string" && !isContentPartArray(e.data)) extra["tool_result"] = cloneJson(e.data);
    // ATIF keeps the annotation under the same name as the ATOF profile key.
    if (hasAnnotation) extra[PROFILE_TOOL_RESULT_ANNOTATION] = cloneJson(annotation);
    result.extra = extra;
    if (!this.stepByCallScope.has(e.uuid) && this.current && callId !== undefined) this.stepByCallScope.set(e.uuid, this.current);
    this.pending.push({ callId, result, us: te.us });
  }

  /** Queues the parent-side reference to an embedded subagent trajectory. */
  reference(child: ChildReference, us: number): void {
    const callId = child.toolCallId ?? this.activeToolCallOf(child.uuid) ?? this.onlyOpenToolCall();
    const issued = callId !== undefined && (this.current?.tool_calls ?? []).some((c) => c.tool_call_id === callId);
    const result: AtifObservationResult = {
      subagent_trajectory_ref: [
        { trajectory_id: child.uuid, session_id: child.sessionId, extra: { name: child.name, scope_uuid: child.uuid } },
      ],
      extra: { event_uuid: child.uuid, event_name: child.name },
    };
    if (issued) {
      result.source_call_id = callId;
      this.pending.push({ callId, result, us });
    } else {
      this.leftovers.push({ result, us });
    }
  }

  /**
   * The call of the one tool still running when a child agent starts. Work inside a tool callback
   * is parented to the enclosing scope, not to the tool, so time is the link; with several tools
   * running there is no telling which one started the child, and none is chosen.
   */
  private onlyOpenToolCall(): string | undefined {
    if (this.openTools.size !== 1) return undefined;
    return this.openTools.values().next().value;
  }

  /** The call id of the nearest tool scope between a child agent and this trajectory's boundary. */
  private activeToolCallOf(childUuid: string): string | undefined {
    let uuid = this.ctx.scopes.get(childUuid)?.parentUuid ?? null;
    const seen = new Set<string>();
    while (uuid !== null && uuid !== this.ctx.boundaryUuid && !seen.has(uuid)) {
      seen.add(uuid);
      const info = this.ctx.scopes.get(uuid);
      if (!info) return undefined;
      if (info.category === "tool") return this.callIdByTool.get(uuid);
      uuid = info.parentUuid;
    }
    return undefined;
  }

  private attach(step: AtifStep, q: Queued): void {
    const results = (step.observation ??= { results: [] }).results;
    const same = q.callId === undefined ? undefined : results.find((r) => r.source_call_id === q.callId);
    if (!same) {
      results.push(q.result);
      return;
    }
    // A second result for the same call merges: first non-null content wins, extras shallow-merge —
    // except that the real result of a call re-run after its suspension was answered replaces the
    // suspension's placeholder text.
    const answered = isSuspension(same) && !isSuspension(q.result);
    if ((same.content === undefined || same.content === null || answered) && q.result.content !== undefined)
      same.content = q.result.content;
    if (!same.subagent_trajectory_ref && q.result.subagent_trajectory_ref) same.subagent_trajectory_ref = q.result.subagent_trajectory_ref;
    if (q.result.extra) same.extra = { ...(same.extra ?? {}), ...q.result.extra };
  }

  private flushPending(): void {
    const queued = this.pending;
    this.pending = [];
    for (const q of queued) {
      if (q.callId === undefined) this.leftovers.push(q);
      else if (this.current?.tool_calls?.some((c) => c.tool_call_id === q.callId)) this.attach(this.current, q);
      else {
        const list = this.deferred.get(q.callId) ?? [];
        list.push(q);
        this.deferred.set(q.callId, list);
      }
    }
  }

  /** Tool call id → the first tool scope that ran it. */
  toolScopes(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [scopeUuid, callId] of this.callIdByTool) if (!out.has(callId)) out.set(callId, scopeUuid);
    return out;
  }

  /** Steps numbered 1..N, and the marks and evaluations that belong to no step (the run's own). */
  finish(): { steps: AtifStep[]; unownedMarks: JsonObject[]; unownedEvaluations: JsonObject[] } {
    this.flushPending();
    const rest = [...this.leftovers, ...[...this.deferred.values()].flat()].sort((a, b) => a.us - b.us);
    if (rest.length > 0) {
      const results = rest.map((q) => {
        const { source_call_id: _dropped, ...r } = q.result; // a system step issues no calls, so its results cite none
        return r;
      });
      this.steps.push({ step_id: 0, timestamp: formatTimestamp(rest[0]!.us), source: "system", message: "", observation: { results } });
    }
    this.steps.forEach((s, i) => (s.step_id = i + 1));
    // A mark whole, an evaluation as itself ({ name, score?, label?, explanation? }).
    const unownedMarks = this.placeOnSteps(this.marks, "marks", (mark) => cloneJson(mark as unknown as JsonObject));
    const unownedEvaluations = this.placeOnSteps(this.evaluations, "evaluations", (mark) => cloneJson(mark.data as JsonObject));
    return { steps: this.steps, unownedMarks, unownedEvaluations };
  }

  /** Puts each mark's entry in `extra[key]` of the step that owns it; returns the entries no step owns. */
  private placeOnSteps(marks: readonly AtofEvent[], key: string, entryOf: (mark: AtofEvent) => JsonObject): JsonObject[] {
    const unowned: JsonObject[] = [];
    for (const mark of marks) {
      const entry = entryOf(mark);
      const step = this.owningStep(mark.parent_uuid);
      if (step === undefined) {
        unowned.push(entry);
        continue;
      }
      const extra = (step.extra ??= {});
      const list = Array.isArray(extra[key]) ? extra[key] : (extra[key] = []);
      list.push(entry);
    }
    return unowned;
  }

  private owningStep(parentUuid: string | null): AtifStep | undefined {
    const seen = new Set<string>();
    let uuid = parentUuid;
    while (uuid !== null && uuid !== this.ctx.boundaryUuid && !seen.has(uuid)) {
      seen.add(uuid);
      const step = this.stepByCallScope.get(uuid);
      if (step) return step;
      uuid = this.ctx.scopes.get(uuid)?.parentUuid ?? null;
    }
    return undefined;
  }
}

/** Observation content: a string or ContentPart array as is, the loop's ToolResult `output`, NAT's `{result}`. */
export function toolContent(data: Json): AtifMessage | undefined {
  if (typeof data === "string") return data;
  if (isContentPartArray(data)) return cloneJson(data) as AtifMessage;
  if (isJsonObject(data)) {
    if (typeof data["output"] === "string" && typeof data["isError"] === "boolean") return data["output"];
    const keys = Object.keys(data);
    const only = data["result"];
    if (keys.length === 1 && only !== undefined && only !== null && typeof only !== "object") return String(only);
  }
  return undefined;
}

/** A result whose annotation is the agent loop's `{pending: Request}` (a suspended call). */
function isSuspension(result: AtifObservationResult): boolean {
  const annotation = result.extra?.[PROFILE_TOOL_RESULT_ANNOTATION];
  return isJsonObject(annotation) && ANNOTATION_PENDING in annotation;
}
