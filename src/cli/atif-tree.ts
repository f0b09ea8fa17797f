import type { AtifStep, AtifTrajectory } from "../../exporters/atif/types.js";
import { escapeControlCharacters } from "../../exporters/testing/control-characters.js";
import { MAX_DRAWN_DEPTH } from "../../exporters/testing/tree.js";

function clip(text: string, max = 72): string {
  const one = escapeControlCharacters(text.replace(/\s+/g, " ").trim());
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function messageText(message: AtifStep["message"]): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return "";
  return message.map((p) => (p.type === "text" ? (p.text ?? "") : `[image ${p.source?.path ?? ""}]`)).join(" ");
}

function trajectoryLines(doc: AtifTrajectory, indent: string, lines: string[]): void {
  const name = escapeControlCharacters(`${doc.agent.name} ${doc.agent.version}`);
  const ids = escapeControlCharacters(`trajectory ${doc.trajectory_id ?? "(no id)"}, session ${doc.session_id ?? "(none)"}`);
  lines.push(`${indent}${name} — ${ids}`);
  const steps = doc.steps;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1 && !doc.subagent_trajectories?.length;
    const branch = `${indent}${last ? "└─ " : "├─ "}`;
    const inner = `${indent}${last ? "   " : "│  "}`;
    const tokens = step.metrics
      ? ` [${step.metrics.prompt_tokens ?? 0} prompt / ${step.metrics.completion_tokens ?? 0} completion tokens]`
      : "";
    const model = step.model_name ? ` ${escapeControlCharacters(step.model_name)}` : "";
    const text = messageText(step.message);
    lines.push(
      `${branch}#${step.step_id} ${escapeControlCharacters(String(step.source))}${model}${tokens}${text ? `: ${clip(text)}` : ""}`,
    );
    const calls = step.tool_calls ?? [];
    const results = step.observation?.results ?? [];
    const children: string[] = [];
    const resultOf = new Map<string | undefined, (typeof results)[number]>();
    for (const r of results) if (!resultOf.has(r.source_call_id)) resultOf.set(r.source_call_id, r);
    const callIds = new Set(calls.map((c) => c.tool_call_id));
    for (const call of calls) {
      const result = resultOf.get(call.tool_call_id);
      const content = result?.content;
      const shown = typeof content === "string" ? ` → ${clip(content, 48)}` : result ? " → (result)" : " → (no result)";
      children.push(`call ${clip(String(call.function_name), 60)} ${clip(JSON.stringify(call.arguments) ?? "", 40)}${shown}`);
    }
    for (const r of results) {
      if (r.source_call_id === undefined || !callIds.has(r.source_call_id)) {
        children.push(`observation ${typeof r.content === "string" ? clip(r.content, 60) : "(structured)"}`);
      }
    }
    const marks = (step.extra as { marks?: { name?: string }[] } | undefined)?.marks ?? [];
    for (const m of marks) children.push(`• ${clip(String(m.name ?? "mark"), 60)}`);
    children.forEach((c, j) => lines.push(`${inner}${j === children.length - 1 ? "└─ " : "├─ "}${c}`));
  });
}

/**
 * A terminal tree of an ATIF trajectory: steps, their tool calls and observations, then each
 * subagent's tree indented below. Walks with an explicit stack (nesting depth is the file's to
 * choose); past MAX_DRAWN_DEPTH levels the indentation stops growing.
 */
export function atifTree(doc: AtifTrajectory): string[] {
  const lines: string[] = [];
  const stack: { doc: AtifTrajectory; indent: string; depth: number }[] = [{ doc, indent: "", depth: 0 }];
  while (stack.length > 0) {
    const { doc: current, indent, depth } = stack.pop()!;
    trajectoryLines(current, depth > MAX_DRAWN_DEPTH ? `${indent}[depth ${depth}] ` : indent, lines);
    const subs = current.subagent_trajectories ?? [];
    const inner = depth >= MAX_DRAWN_DEPTH ? indent : `${indent}   `;
    for (let i = subs.length - 1; i >= 0; i--) stack.push({ doc: subs[i]!, indent: inner, depth: depth + 1 });
  }
  return lines;
}
