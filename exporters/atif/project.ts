import { META_RESUME_OF } from "../../src/events/wire-names.js";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { formatTimestamp, parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { TrajectoryBuilder, type ScopeInfo, type TimedEvent } from "./builder.js";
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

function scopeTable(events: TimedEvent[]): Map<string, ScopeInfo & { startUs: number; endUs?: number }> {
  const scopes = new Map<string, ScopeInfo & { startUs: number; endUs?: number }>();
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

  const isBoundary = (s: ScopeInfo): boolean => s.category === "agent";
  const hasAgents = options.boundaries !== undefined ? options.boundaries === "agent" : [...scopes.values()].some(isBoundary);
  // Without agent scopes, each root scope (parent absent from the stream) bounds a trajectory.
  const boundaries = new Set<string>();
  for (const s of scopes.values()) {
    if (hasAgents ? isBoundary(s) : s.parentUuid === null || !scopes.has(s.parentUuid)) boundaries.add(s.uuid);
  }
  // Memoized along the walked path, so deep chains of plain scopes cost linear time, not quadratic.
  const owners = new Map<string, string | undefined>();
  const ownerOf = (parentUuid: string | null): string | undefined => {
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

  // Nesting: a boundary is a subagent of its owner only while that owner is still open.
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

  const byOwner = new Map<string, TimedEvent[]>();
  for (const te of sorted) {
    const e = te.event;
    const isOwnBoundary = e.kind === "scope" && boundaries.has(e.uuid);
    const owner = isOwnBoundary ? parentOf.get(e.uuid) : ownerOf(e.parent_uuid);
    if (owner === undefined) continue;
    const list = byOwner.get(owner) ?? [];
    list.push(te);
    byOwner.set(owner, list);
  }

  const framework = options.framework ?? "relaytrace";
  const includeMarks = options.includeMarks ?? true;

  // Built bottom-up from an explicit order, not by recursion: nesting depth is the input's to choose.
  const sessionOf = new Map<string, string>();
  const built = new Map<string, AtifTrajectory | undefined>();
  const build = (uuid: string, topLevel: boolean): AtifTrajectory | undefined => {
    const scope = scopes.get(uuid)!;
    const sessionId = sessionOf.get(uuid)!;
    // A resumed run re-executes calls an earlier trajectory issued: the builder restates them.
    const resumed = topLevel && metaString(scope.start, RESUME_OF_KEY) !== undefined;
    const builder = new TrajectoryBuilder({ framework, includeMarks, scopes, boundaryUuid: uuid, resumed }, llmWithEnd);
    const subagents: AtifTrajectory[] = [];
    for (const te of byOwner.get(uuid) ?? []) {
      const e = te.event;
      if (e.kind === "scope" && parentOf.get(e.uuid) === uuid) {
        if (e.scope_category !== "start" && scopes.get(e.uuid)!.start) continue;
        const child = scopes.get(e.uuid)!;
        const childTrajectory = built.get(e.uuid);
        if (!childTrajectory) continue; // a child with no steps is dropped, and so is its reference
        subagents.push(childTrajectory);
        builder.reference(
          { uuid: e.uuid, name: child.name, sessionId: sessionOf.get(e.uuid)!, toolCallId: metaString(child.start, "tool_call_id") },
          te.us,
        );
        continue;
      }
      builder.process(te);
    }
    const finished = builder.finish();
    const steps = finished.steps.length > 0 ? finished.steps : fallbackSteps(scope);
    if (steps.length === 0) return undefined;

    const firstModel = steps.find((s) => s.model_name !== undefined)?.model_name;
    const given = options.agent;
    const version = given?.version ?? metaString(scope.start, "agent_version") ?? DEFAULT_AGENT_VERSION;
    const trajectory: AtifTrajectory = {
      schema_version: "ATIF-v1.7",
      session_id: sessionId,
      trajectory_id: uuid,
      agent: { name: topLevel && given ? given.name : scope.name, version },
      steps,
    };
    const modelName = (topLevel ? given?.modelName : undefined) ?? firstModel;
    if (modelName) trajectory.agent.model_name = modelName;
    if (topLevel && given?.toolDefinitions)
      trajectory.agent.tool_definitions = JSON.parse(JSON.stringify(given.toolDefinitions)) as JsonObject[];
    trajectory.final_metrics = finalMetricsOf(steps);
    if (subagents.length > 0) trajectory.subagent_trajectories = subagents;
    const extra: JsonObject = {};
    if (finished.unownedMarks.length > 0) extra["marks"] = finished.unownedMarks;
    const resumeOf = metaString(scope.start, RESUME_OF_KEY);
    if (topLevel && (resumeOf !== undefined || ownerOf(scope.parentUuid) !== undefined)) {
      const ref: JsonObject = {};
      if (resumeOf !== undefined) ref["request_id"] = resumeOf;
      const previous = ownerOf(scope.parentUuid) ?? scope.parentUuid;
      if (previous !== null) ref["trajectory_id"] = previous;
      extra["resume_of"] = ref;
    }
    if (Object.keys(extra).length > 0) trajectory.extra = extra;
    return trajectory;
  };

  const out: AtifTrajectory[] = [];
  const tops = [...boundaries].filter((u) => !parentOf.has(u)).sort((a, b) => scopes.get(a)!.startUs - scopes.get(b)!.startUs);
  // Sessions flow down (a child inherits its parent's); trajectories are built children first.
  const preorder: string[] = [];
  const pending = [...tops].reverse();
  for (const uuid of tops) {
    const scope = scopes.get(uuid)!;
    sessionOf.set(uuid, metaString(scope.start, "session_id") ?? metaString(scope.end, "session_id") ?? options.sessionId ?? uuid);
  }
  while (pending.length > 0) {
    const uuid = pending.pop()!;
    preorder.push(uuid);
    for (const child of children.get(uuid) ?? []) {
      sessionOf.set(child, metaString(scopes.get(child)!.start, "session_id") ?? sessionOf.get(uuid)!);
      pending.push(child);
    }
  }
  const topSet = new Set(tops);
  for (let i = preorder.length - 1; i >= 0; i--) built.set(preorder[i]!, build(preorder[i]!, topSet.has(preorder[i]!)));
  for (const uuid of tops) {
    const t = built.get(uuid);
    if (t) out.push(t);
  }
  return out;
}

/**
 * For producers that emit no LLM events (NAT's exmp01): the boundary's input becomes a user step
 * and its output an agent step that made no LLM call, so the run is still visible.
 */
function fallbackSteps(scope: ScopeInfo & { startUs: number; endUs?: number }): AtifStep[] {
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
