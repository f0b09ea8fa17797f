import { META_RESUME_OF } from "../../src/events/wire-names.js";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { formatTimestamp, parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { TrajectoryBuilder, type ScopeInfo, type TimedEvent } from "./builder.js";
import { assignAncestry } from "./ancestry.js";
import { summarizePayload } from "./content.js";
import { finalMetricsOf } from "./metrics.js";
import type { AtifStep, AtifTrajectory, AtofToAtifOptions } from "./types.js";

/**
 * Scope metadata key naming the request a resumed run continues; a top-level trajectory whose
 * scope carries it gets `extra.resume_of.request_id`.
 */
export const RESUME_OF_KEY = META_RESUME_OF;

/** The agent version written when neither the options nor the agent scope's `agent_version` metadata give one. */
const DEFAULT_AGENT_VERSION = "0.0.0";

/** Normalizes timestamps and sorts stably; events that are not ATOF-shaped or carry a bad timestamp are skipped. */
export function sortEvents(events: readonly AtofEvent[]): TimedEvent[] {
  const out: TimedEvent[] = [];
  events.forEach((event, seq) => {
    if (!isJsonObject(event as unknown) || (event.kind !== "scope" && event.kind !== "mark")) return;
    if (typeof event.uuid !== "string" || event.uuid === "") return;
    let us: number;
    try {
      us = parseTimestamp(event.timestamp);
    } catch {
      return;
    }
    out.push({ event, us, seq });
  });
  return out.sort((a, b) => a.us - b.us || a.seq - b.seq);
}

function scopeTable(events: TimedEvent[]): Map<string, ScopeRecord> {
  const scopes = new Map<string, ScopeRecord>();
  for (const { event: e, us } of events) {
    if (e.kind !== "scope") continue;
    let info = scopes.get(e.uuid);
    if (!info) {
      info = { uuid: e.uuid, name: e.name, category: e.category, parentUuid: e.parent_uuid, startUs: us };
      scopes.set(e.uuid, info);
    }
    if (e.scope_category === "start") info.start = e;
    else {
      info.end = e;
      info.endUs = us;
    }
  }
  return scopes;
}

const metaString = (scope: ScopeEvent | undefined, key: string): string | undefined => {
  const m: Json | undefined = scope?.metadata;
  return isJsonObject(m) && typeof m[key] === "string" && m[key] !== "" ? (m[key] as string) : undefined;
};

type ScopeRecord = ScopeInfo & { startUs: number; endUs?: number };

/** What building one trajectory needs: the scope table, the nesting and the events each boundary owns. */
interface Projection {
  scopes: Map<string, ScopeRecord>;
  llmWithEnd: Set<string>;
  boundaries: Set<string>;
  ownerOf: (parentUuid: string | null) => string | undefined;
  parentOf: Map<string, string>;
  children: Map<string, string[]>;
  byOwner: Map<string, TimedEvent[]>;
  sessionOf: Map<string, string>;
  built: Map<string, AtifTrajectory | undefined>;
  options: AtofToAtifOptions;
}

/**
 * Projects an ATOF event stream to ATIF v1.7 trajectories: one per top-level agent
 * scope, with nested agent scopes as `subagent_trajectories`. An agent scope whose parent agent had
 * already ended (a durable resume) is top-level and refers back through `extra.resume_of`. A stream
 * with no agent scope at all uses each root scope as the boundary. Trajectories without steps are omitted.
 */
export function atofToAtif(events: readonly AtofEvent[], options: AtofToAtifOptions = {}): AtifTrajectory[] {
  const sorted = sortEvents(events);
  const scopes = scopeTable(sorted);
  const llmWithEnd = new Set<string>();
  for (const s of scopes.values()) if (s.category === "llm" && s.end) llmWithEnd.add(s.uuid);
  const boundaries = boundariesOf(scopes, options);
  const ownerOf = ownerLookup(scopes, boundaries, options);
  const { parentOf, children } = nestBoundaries(scopes, boundaries, ownerOf);
  const byOwner = new Map<string, TimedEvent[]>();
  for (const te of sorted) {
    const e = te.event;
    const isOwnBoundary = e.kind === "scope" && boundaries.has(e.uuid);
    const owner = isOwnBoundary ? (parentOf.get(e.uuid) ?? ownStepsOf(e)) : ownerOf(e.parent_uuid);
    if (owner === undefined) continue;
    const list = byOwner.get(owner) ?? [];
    list.push(te);
    byOwner.set(owner, list);
  }
  const projection: Projection = {
    scopes,
    llmWithEnd,
    boundaries,
    ownerOf,
    parentOf,
    children,
    byOwner,
    sessionOf: new Map(),
    built: new Map(),
    options,
  };
  return buildAll(projection);
}

/**
 * A model call at the root of a stream without agent scopes (an SDK's model call traced on its
 * own) is a trajectory of its own steps: its request's user turn and its reply, read as any
 * model call's are, rather than its bodies as JSON text.
 */
function ownStepsOf(event: AtofEvent): string | undefined {
  return event.kind === "scope" && event.category === "llm" ? event.uuid : undefined;
}

/** Agent scopes; without any (or when told), each root scope (parent absent from the stream). */
function boundariesOf(scopes: Map<string, ScopeRecord>, options: AtofToAtifOptions): Set<string> {
  const isBoundary = (s: ScopeInfo): boolean => s.category === "agent";
  const hasAgents = options.boundaries !== undefined ? options.boundaries === "agent" : [...scopes.values()].some(isBoundary);
  const boundaries = new Set<string>();
  for (const s of scopes.values()) {
    if (hasAgents ? isBoundary(s) : s.parentUuid === null || !scopes.has(s.parentUuid)) boundaries.add(s.uuid);
  }
  return boundaries;
}

/** The boundary owning a scope's parent chain, memoized along the walked path so deep chains cost linear time. */
function ownerLookup(
  scopes: Map<string, ScopeRecord>,
  boundaries: Set<string>,
  options: AtofToAtifOptions,
): (parentUuid: string | null) => string | undefined {
  const owners = new Map<string, string | undefined>();
  return (parentUuid) => {
    const walked: string[] = [];
    const seen = new Set<string>();
    let uuid = parentUuid;
    let owner: string | undefined;
    while (uuid !== null && !seen.has(uuid)) {
      if (owners.has(uuid)) {
        owner = owners.get(uuid);
        break;
      }
      if (boundaries.has(uuid)) {
        owner = uuid;
        break;
      }
      seen.add(uuid);
      walked.push(uuid);
      const scope = scopes.get(uuid);
      if (scope === undefined && options.ownerOutside !== undefined) {
        owner = options.ownerOutside(uuid); // a scope of an earlier part of the stream
        break;
      }
      uuid = scope?.parentUuid ?? null;
    }
    for (const w of walked) owners.set(w, owner);
    return owner;
  };
}

/** Nesting: a boundary is a subagent of its owner only while that owner is still open. */
function nestBoundaries(
  scopes: Map<string, ScopeRecord>,
  boundaries: Set<string>,
  ownerOf: (parentUuid: string | null) => string | undefined,
): { parentOf: Map<string, string>; children: Map<string, string[]> } {
  const parentOf = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const uuid of boundaries) {
    const s = scopes.get(uuid)!;
    const owner = ownerOf(s.parentUuid);
    if (owner === undefined) continue;
    const o = scopes.get(owner);
    if (o === undefined) continue; // owned by an earlier part of the stream (ownerOutside): it ended before
    if (o.endUs !== undefined && o.endUs <= s.startUs) continue; // resumed after the parent ended
    parentOf.set(uuid, owner);
    const siblings = children.get(owner);
    if (siblings) siblings.push(uuid);
    else children.set(owner, [uuid]);
  }
  return { parentOf, children };
}

/**
 * Sessions flow down (a child inherits its parent's); trajectories are built children first, from
 * an explicit order rather than by recursion: nesting depth is the input's to choose.
 */
function buildAll(p: Projection): AtifTrajectory[] {
  const { scopes, sessionOf, built } = p;
  const tops = [...p.boundaries].filter((u) => !p.parentOf.has(u)).sort((a, b) => scopes.get(a)!.startUs - scopes.get(b)!.startUs);
  const preorder: string[] = [];
  const pending = [...tops].reverse();
  for (const uuid of tops) {
    const scope = scopes.get(uuid)!;
    sessionOf.set(uuid, metaString(scope.start, "session_id") ?? metaString(scope.end, "session_id") ?? p.options.sessionId ?? uuid);
  }
  while (pending.length > 0) {
    const uuid = pending.pop()!;
    preorder.push(uuid);
    for (const child of p.children.get(uuid) ?? []) {
      sessionOf.set(child, metaString(scopes.get(child)!.start, "session_id") ?? sessionOf.get(uuid)!);
      pending.push(child);
    }
  }
  const topSet = new Set(tops);
  for (let i = preorder.length - 1; i >= 0; i--) built.set(preorder[i]!, buildTrajectory(p, preorder[i]!, topSet.has(preorder[i]!)));
  const out: AtifTrajectory[] = [];
  for (const uuid of tops) {
    const t = built.get(uuid);
    if (t) out.push(t);
  }
  return out;
}

/** The steps of one boundary (its built subagents referenced from the calling step), or undefined when it has none. */
function buildTrajectory(p: Projection, uuid: string, topLevel: boolean): AtifTrajectory | undefined {
  const scope = p.scopes.get(uuid)!;
  const framework = p.options.framework ?? "relaytrace";
  const includeMarks = p.options.includeMarks ?? true;
  // A resumed run re-executes calls an earlier trajectory issued: the builder restates them.
  const resumed = topLevel && metaString(scope.start, RESUME_OF_KEY) !== undefined;
  const builder = new TrajectoryBuilder({ framework, includeMarks, scopes: p.scopes, boundaryUuid: uuid, resumed }, p.llmWithEnd);
  const subagents: AtifTrajectory[] = [];
  for (const te of p.byOwner.get(uuid) ?? []) {
    const e = te.event;
    if (e.kind === "scope" && p.parentOf.get(e.uuid) === uuid) {
      if (e.scope_category !== "start" && p.scopes.get(e.uuid)!.start) continue;
      const child = p.scopes.get(e.uuid)!;
      const childTrajectory = p.built.get(e.uuid);
      if (!childTrajectory) continue; // a child with no steps is dropped, and so is its reference
      subagents.push(childTrajectory);
      const toolCallId = metaString(child.start, "tool_call_id");
      builder.reference({ uuid: e.uuid, name: child.name, sessionId: p.sessionOf.get(e.uuid)!, toolCallId }, te.us);
      continue;
    }
    builder.process(te);
  }
  const finished = builder.finish();
  const steps = finished.steps.length > 0 ? finished.steps : fallbackSteps(scope);
  if (steps.length === 0) return undefined;
  assignAncestry(steps, { scopes: p.scopes, boundaryUuid: uuid, toolScopeOfCall: builder.toolScopes() });
  const trajectory = trajectoryHead(p, scope, steps, topLevel);
  if (subagents.length > 0) trajectory.subagent_trajectories = subagents;
  const extra: JsonObject = {};
  if (finished.unownedMarks.length > 0) extra["marks"] = finished.unownedMarks;
  // Evaluations of the run as a whole (or of a part that is no step).
  if (finished.unownedEvaluations.length > 0) extra["evaluations"] = finished.unownedEvaluations;
  const resumeOf = metaString(scope.start, RESUME_OF_KEY);
  const previous = p.ownerOf(scope.parentUuid);
  if (topLevel && (resumeOf !== undefined || previous !== undefined)) {
    const ref: JsonObject = {};
    if (resumeOf !== undefined) ref["request_id"] = resumeOf;
    const trajectoryId = previous ?? scope.parentUuid;
    if (trajectoryId !== null) ref["trajectory_id"] = trajectoryId;
    extra["resume_of"] = ref;
  }
  if (Object.keys(extra).length > 0) trajectory.extra = extra;
  return trajectory;
}

/** Schema version, ids, agent (the options name only the top-level one), steps and final metrics. */
function trajectoryHead(p: Projection, scope: ScopeRecord, steps: AtifStep[], topLevel: boolean): AtifTrajectory {
  const firstModel = steps.find((s) => s.model_name !== undefined)?.model_name;
  const given = p.options.agent;
  const version = given?.version ?? metaString(scope.start, "agent_version") ?? DEFAULT_AGENT_VERSION;
  const trajectory: AtifTrajectory = {
    schema_version: "ATIF-v1.7",
    session_id: p.sessionOf.get(scope.uuid)!,
    trajectory_id: scope.uuid,
    agent: { name: topLevel && given ? given.name : scope.name, version },
    steps,
  };
  const modelName = (topLevel ? given?.modelName : undefined) ?? firstModel;
  if (modelName) trajectory.agent.model_name = modelName;
  if (topLevel && given?.toolDefinitions)
    trajectory.agent.tool_definitions = JSON.parse(JSON.stringify(given.toolDefinitions)) as JsonObject[];
  trajectory.final_metrics = finalMetricsOf(steps);
  return trajectory;
}

/**
 * For producers that emit no LLM events (NAT's exmp01): the boundary's input becomes a user step
 * and its output an agent step that made no LLM call, so the run is still visible.
 */
function fallbackSteps(scope: ScopeRecord): AtifStep[] {
  const steps: AtifStep[] = [];
  const input = scope.start ? summarizePayload(scope.start.data) : undefined;
  if (input !== undefined)
    steps.push({ step_id: steps.length + 1, timestamp: formatTimestamp(scope.startUs), source: "user", message: input });
  const output = scope.end ? summarizePayload(scope.end.data) : undefined;
  if (output !== undefined && scope.endUs !== undefined) {
    steps.push({ step_id: steps.length + 1, timestamp: formatTimestamp(scope.endUs), source: "agent", message: output, llm_call_count: 0 });
  }
  return steps;
}
