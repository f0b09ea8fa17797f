import type { AtifStep, AtifTrajectory } from "../../exporters/atif/index.js";

/**
 * NAT's lineage rule for ATIF ancestry, as its `print_atif_function_tree --validate` applies it to
 * each trajectory: every step names its callable in `extra.ancestry`, `extra.tool_ancestry` is
 * aligned with `tool_calls`, and every `parent_id` is `root`, absent, or the `function_id` of a
 * step or tool node of the same trajectory. Embedded subagent trajectories are checked on their own.
 */
export function lineageProblems(trajectory: AtifTrajectory): string[] {
  const problems: string[] = [];
  const queue: { t: AtifTrajectory; label: string }[] = [{ t: trajectory, label: trajectory.trajectory_id ?? "trajectory" }];
  while (queue.length > 0) {
    const { t, label } = queue.shift()!;
    problems.push(...trajectoryProblems(t).map((p) => `${label}: ${p}`));
    for (const sub of t.subagent_trajectories ?? []) queue.push({ t: sub, label: `${label} > ${sub.trajectory_id ?? "subagent"}` });
  }
  return problems;
}

interface Node {
  step: number;
  id: string;
  parent: unknown;
}

function nodesOf(step: AtifStep, problems: string[]): Node[] {
  const nodes: Node[] = [];
  const extra = step.extra ?? {};
  const ancestry = extra["ancestry"] as { function_id?: unknown; parent_id?: unknown } | undefined;
  if (typeof ancestry?.function_id !== "string" || ancestry.function_id === "") problems.push(`step ${step.step_id}: no extra.ancestry`);
  else nodes.push({ step: step.step_id, id: ancestry.function_id, parent: ancestry.parent_id });
  const calls = step.tool_calls ?? [];
  const tools = (extra["tool_ancestry"] ?? []) as { function_id?: unknown; parent_id?: unknown }[];
  if (calls.length > 0 && tools.length !== calls.length)
    problems.push(`step ${step.step_id}: ${tools.length} tool_ancestry nodes for ${calls.length} tool calls`);
  for (const tool of tools) {
    if (typeof tool.function_id !== "string" || tool.function_id === "")
      problems.push(`step ${step.step_id}: tool node without function_id`);
    else nodes.push({ step: step.step_id, id: tool.function_id, parent: tool.parent_id });
  }
  return nodes;
}

function trajectoryProblems(t: AtifTrajectory): string[] {
  const problems: string[] = [];
  const nodes = t.steps.flatMap((s) => nodesOf(s, problems));
  const known = new Set(["root", ...nodes.map((n) => n.id)]);
  for (const n of nodes) {
    if (n.parent === undefined || n.parent === null || n.parent === "") continue;
    if (!known.has(String(n.parent))) problems.push(`step ${n.step}: parent_id ${String(n.parent)} of ${n.id} is not in the lineage`);
  }
  return problems;
}
