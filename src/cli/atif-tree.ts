import type { AtifStep, AtifTrajectory } from "../../exporters/atif/types.js";

function clip(text: string, max = 72): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function messageText(message: AtifStep["message"]): string {
  if (typeof message === "string") return message;
  return message.map((p) => (p.type === "text" ? p.text ?? "" : `[image ${p.source?.path ?? ""}]`)).join(" ");
}

/** A terminal tree of an ATIF trajectory: steps, their tool calls and observations. */
export function atifTree(doc: AtifTrajectory, indent = ""): string[] {
  const lines = [`${indent}${doc.agent.name} ${doc.agent.version} — trajectory ${doc.trajectory_id ?? "(no id)"}, session ${doc.session_id ?? "(none)"}`];
  const steps = doc.steps;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1 && !doc.subagent_trajectories?.length;
    const branch = `${indent}${last ? "└─ " : "├─ "}`;
    const inner = `${indent}${last ? "   " : "│  "}`;
    const tokens = step.metrics
      ? ` [${step.metrics.prompt_tokens ?? 0} prompt / ${step.metrics.completion_tokens ?? 0} completion tokens]`
      : "";
    const model = step.model_name ? ` ${step.model_name}` : "";
    const text = messageText(step.message);
    lines.push(`${branch}#${step.step_id} ${step.source}${model}${tokens}${text ? `: ${clip(text)}` : ""}`);
    const calls = step.tool_calls ?? [];
    const results = step.observation?.results ?? [];
    const children: string[] = [];
    for (const call of calls) {
      const result = results.find((r) => r.source_call_id === call.tool_call_id);
      const content = result?.content;
      const shown = typeof content === "string" ? ` → ${clip(content, 48)}` : result ? " → (result)" : " → (no result)";
      children.push(`call ${call.function_name} ${clip(JSON.stringify(call.arguments), 40)}${shown}`);
    }
    for (const r of results) {
      if (r.source_call_id === undefined || !calls.some((c) => c.tool_call_id === r.source_call_id)) {
        children.push(`observation ${typeof r.content === "string" ? clip(r.content, 60) : "(structured)"}`);
      }
    }
    const marks = (step.extra as { marks?: { name?: string }[] } | undefined)?.marks ?? [];
    for (const m of marks) children.push(`• ${m.name ?? "mark"}`);
    children.forEach((c, j) => lines.push(`${inner}${j === children.length - 1 ? "└─ " : "├─ "}${c}`));
  });
  for (const sub of doc.subagent_trajectories ?? []) lines.push(...atifTree(sub, `${indent}   `));
  return lines;
}
