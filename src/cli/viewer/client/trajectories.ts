import type { El } from "./browser.js";
import { h, json, pre } from "./dom.js";
import { evaluationsList, evaluationsOf } from "./evaluations.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** An ATIF message (a string or content parts) as text; images by their path. */
function messageText(message: any): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return message === undefined || message === null ? "" : json(message);
  return message
    .map((p: any) => (p && p.type === "text" ? p.text : p && p.type === "image" ? "[image " + (p.source?.path ?? "") + "]" : ""))
    .join("\n");
}

/** The metrics present in `m`, each as its label writes it, joined by " · ". */
function metricsLine(m: any, labels: [string, (v: unknown) => string][]): string {
  if (!m) return "";
  return labels
    .filter(([key]) => m[key] !== undefined)
    .map(([key, label]) => label(m[key]))
    .join(" · ");
}

const STEP_METRICS: [string, (v: unknown) => string][] = [
  ["prompt_tokens", (v) => v + " prompt"],
  ["completion_tokens", (v) => v + " completion"],
  ["cached_tokens", (v) => v + " cached"],
  ["cost_usd", (v) => "$" + v],
];
const FINAL_METRICS: [string, (v: unknown) => string][] = [
  ["total_prompt_tokens", (v) => v + " prompt tokens"],
  ["total_completion_tokens", (v) => v + " completion tokens"],
  ["total_cached_tokens", (v) => v + " cached"],
  ["total_cost_usd", (v) => "$" + v],
  ["total_steps", (v) => v + " steps"],
];

function stepHead(step: any): El {
  return h(
    "div",
    { class: "step-head" },
    h("span", { class: "step-no" }, "#" + step.step_id),
    h("span", { class: "source", "data-source": step.source }, step.source),
    step.model_name ? h("span", { class: "model" }, step.model_name) : null,
    step.timestamp ? h("span", { class: "time" }, step.timestamp) : null,
  );
}

function toolCallView(call: any, result: any): El {
  return h(
    "div",
    { class: "tool-call", "data-tool-call-id": call.tool_call_id },
    h("span", { class: "call-name" }, "→ " + call.function_name + " (" + call.tool_call_id + ")"),
    pre(call.arguments),
    result
      ? h("div", { class: "observation" }, h("span", { class: "role" }, "observation"), pre(messageText(result.content)))
      : h("div", { class: "observation missing" }, "no observation"),
  );
}

/** Results that answer no call of the step, and sub-agent references. */
function otherObservations(step: any, results: any[]): El[] {
  const calls: any[] = step.tool_calls ?? [];
  const out: El[] = [];
  for (const r of results) {
    const answersCall = r.source_call_id !== undefined && calls.some((c) => c.tool_call_id === r.source_call_id);
    if (answersCall && !r.subagent_trajectory_ref) continue;
    const refs = (r.subagent_trajectory_ref ?? []).map((ref: any) => ref.trajectory_id ?? ref.trajectory_path ?? "").join(", ");
    const content = r.content !== undefined && r.content !== null ? pre(messageText(r.content)) : null;
    out.push(h("div", { class: "observation" }, h("span", { class: "role" }, refs ? "sub-agent " + refs : "observation"), content));
  }
  return out;
}

/** One ATIF step: who spoke, the text, reasoning, tool calls with their observations, metrics, evaluations, marks. */
export function stepView(step: any): El {
  const el = h("li", { class: "step", "data-step-id": step.step_id, "data-source": step.source }, stepHead(step));
  const text = messageText(step.message);
  if (text) el.append(h("div", { class: "text" }, text));
  if (step.reasoning_content)
    el.append(h("details", null, h("summary", null, "reasoning"), h("div", { class: "text" }, step.reasoning_content)));
  const results: any[] = step.observation?.results ?? [];
  for (const call of step.tool_calls ?? [])
    el.append(
      toolCallView(
        call,
        results.find((r: any) => r.source_call_id === call.tool_call_id),
      ),
    );
  el.append(...otherObservations(step, results));
  const metrics = metricsLine(step.metrics, STEP_METRICS);
  if (metrics) el.append(h("div", { class: "metrics" }, metrics));
  if (evaluationsOf(step.extra?.evaluations).length > 0)
    el.append(h("div", { class: "step-evaluations" }, "evaluations", evaluationsList(step.extra.evaluations)));
  const marks = step.extra?.marks;
  if (Array.isArray(marks) && marks.length > 0)
    el.append(h("div", { class: "metrics" }, "marks: " + marks.map((m: any) => m?.name ?? "mark").join(", ")));
  return el;
}

function trajectoryArticle(traj: any): El {
  const agent = traj.agent ?? {};
  const article = h("article", { class: "trajectory", "data-trajectory-id": traj.trajectory_id ?? "" });
  const head = h(
    "div",
    { class: "traj-head" },
    h("strong", null, (agent.name ?? "agent") + " " + (agent.version ?? "")),
    agent.model_name ? " · " + agent.model_name : "",
    " · " + (traj.schema_version ?? "") + " · trajectory " + (traj.trajectory_id ?? "(no id)"),
  );
  const steps = h("ol", { class: "steps" });
  for (const step of Array.isArray(traj.steps) ? traj.steps : []) steps.append(stepView(step));
  article.append(head, steps);
  const final = metricsLine(traj.final_metrics, FINAL_METRICS);
  if (final) article.append(h("div", { class: "metrics final" }, "final: " + final));
  if (traj.notes) article.append(h("p", { class: "hint" }, traj.notes));
  return article;
}

/** The trajectories pane: each trajectory's steps, sub-agents nested as `<details>`. */
export function trajectoriesPane(trajectories: any[]): El {
  const pane = h("div", { class: "pane traj-pane", "data-pane": "trajectories" });
  // Built from a work list, not by recursion: the input's nesting depth is not ours to trust.
  const work: { traj: any; into: El; nested: boolean }[] = trajectories.map((traj) => ({ traj, into: pane, nested: false })).reverse();
  while (work.length > 0) {
    const { traj, into, nested } = work.pop()!;
    const article = trajectoryArticle(traj);
    if (nested) {
      const summary = h("summary", null, "sub-agent " + (traj.agent?.name ?? "") + " (" + (traj.steps?.length ?? 0) + " steps)");
      into.append(h("details", { class: "subagent" }, summary, article));
    } else into.append(article);
    const subs: any[] = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    for (let s = subs.length - 1; s >= 0; s--) work.push({ traj: subs[s], into: article, nested: true });
  }
  if (trajectories.length === 0) pane.append(h("p", { class: "hint" }, "No ATIF trajectory in the input."));
  return pane;
}
