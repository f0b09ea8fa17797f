import { isJsonObject, type JsonObject } from "../../src/events/json.js";
import type { ScopeInfo } from "./builder.js";
import type { AtifStep } from "./types.js";

/** What the ancestry pass needs to know about the trajectory's scopes. */
export interface LineageContext {
  scopes: ReadonlyMap<string, ScopeInfo>;
  /** The agent (or fallback root) scope the trajectory is built for. */
  boundaryUuid: string;
  /** Tool call id → the uuid of the first tool scope that ran it. */
  toolScopeOfCall: ReadonlyMap<string, string>;
}

/** An ancestry node whose parent is still to be resolved: start the walk at `from`, else fall back to `issuer`. */
interface Unresolved {
  node: JsonObject;
  from: string | null;
  issuer?: string;
}

/**
 * Gives every step `extra.ancestry` and every tool call an ancestry node in the step's
 * `extra.tool_ancestry`, aligned with `tool_calls` (the layout NAT's lineage validator reads).
 * Steps that are not LLM calls (user, system, restated and fallback steps) belong to the agent
 * itself. Each `parent_id` names the nearest enclosing scope that is itself a node of this
 * trajectory, so every parent resolves inside the trajectory's lineage; a node with no such
 * ancestor is a root (no parent).
 */
export function assignAncestry(steps: AtifStep[], ctx: LineageContext): void {
  const boundary = ctx.scopes.get(ctx.boundaryUuid);
  const unresolved: Unresolved[] = [];
  const toolNodes = new Map<AtifStep, JsonObject[]>();
  for (const step of steps) {
    const extra = (step.extra ??= {});
    const own = extra["ancestry"];
    let stepNode: JsonObject;
    if (isJsonObject(own) && typeof own["function_id"] === "string") {
      stepNode = { function_id: own["function_id"], function_name: own["function_name"] ?? own["function_id"] };
      unresolved.push({ node: stepNode, from: ctx.scopes.get(own["function_id"])?.parentUuid ?? null });
    } else {
      stepNode = { function_id: ctx.boundaryUuid, function_name: boundary?.name ?? ctx.boundaryUuid };
    }
    extra["ancestry"] = stepNode;
    const calls = step.tool_calls ?? [];
    if (calls.length === 0) continue;
    const nodes = calls.map((call) => {
      const scopeUuid = ctx.toolScopeOfCall.get(call.tool_call_id);
      const node: JsonObject = { function_id: scopeUuid ?? call.tool_call_id, function_name: call.function_name };
      const from = scopeUuid === undefined ? null : (ctx.scopes.get(scopeUuid)?.parentUuid ?? null);
      unresolved.push({ node, from, issuer: stepNode["function_id"] as string });
      return node;
    });
    toolNodes.set(step, nodes);
  }
  resolveParents(steps, unresolved, ctx.scopes);
  for (const [step, nodes] of toolNodes) step.extra!["tool_ancestry"] = nodes;
}

/** Sets each node's parent to its nearest ancestor scope that is a node of the trajectory. */
function resolveParents(steps: AtifStep[], unresolved: Unresolved[], scopes: ReadonlyMap<string, ScopeInfo>): void {
  const names = new Map<string, string>();
  for (const step of steps) {
    const node = step.extra!["ancestry"] as JsonObject;
    names.set(node["function_id"] as string, String(node["function_name"]));
  }
  for (const { node } of unresolved) names.set(node["function_id"] as string, String(node["function_name"]));
  for (const { node, from, issuer } of unresolved) {
    const self = node["function_id"] as string;
    let parent = nearestKnown(from, self, names, scopes) ?? (issuer !== undefined && issuer !== self ? issuer : undefined);
    if (parent === self) parent = undefined;
    if (parent === undefined) continue;
    node["parent_id"] = parent;
    node["parent_name"] = names.get(parent)!;
  }
}

/** Walks up the scope tree from `from` (cycle-safe) to the first uuid that is a known node other than `self`. */
function nearestKnown(
  from: string | null,
  self: string,
  known: ReadonlyMap<string, string>,
  scopes: ReadonlyMap<string, ScopeInfo>,
): string | undefined {
  const seen = new Set<string>();
  let uuid = from;
  while (uuid !== null && !seen.has(uuid)) {
    if (uuid !== self && known.has(uuid)) return uuid;
    seen.add(uuid);
    uuid = scopes.get(uuid)?.parentUuid ?? null;
  }
  return undefined;
}
