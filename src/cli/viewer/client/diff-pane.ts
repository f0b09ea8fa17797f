import { formatDuration } from "../client-logic.js";
import type { El } from "./browser.js";
import { h, pre } from "./dom.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

const CHANGE_LABELS: Record<string, string> = {
  tool_call_added: "tool call added",
  tool_call_removed: "tool call removed",
  tool_args_changed: "tool arguments changed",
  tool_result_changed: "tool result changed",
  output_changed: "model output changed",
  status_changed: "status changed",
  usage_changed: "tokens changed",
};

function usageText(u: any): string {
  const parts = [u.inputTokens !== undefined ? u.inputTokens + " in" : "", u.outputTokens !== undefined ? u.outputTokens + " out" : ""];
  if (u.costUsd !== undefined) parts.push("$" + u.costUsd);
  return parts.filter(Boolean).join(" · ");
}

/** One run's side of a step: the model call (status, output, tokens, latency) and its tool calls. */
function stepSide(step: any, run: string): El {
  const side = h("div", { class: "diff-side", "data-run": run });
  if (!step) {
    side.append(h("p", { class: "hint" }, "no such step in this run"));
    return side;
  }
  const m = step.model;
  if (m) {
    const latency = m.latencyUs !== undefined ? formatDuration(m.latencyUs) : "";
    side.append(
      h(
        "div",
        { class: "step-head" },
        h("span", { class: "status", "data-status": m.status }, m.status),
        " " + [usageText(m.usage), latency].filter(Boolean).join(" · "),
      ),
      m.text !== undefined ? h("div", { class: "text" }, m.text) : h("p", { class: "hint" }, "no reply recorded"),
    );
  }
  for (const t of step.tools) {
    side.append(
      h(
        "div",
        { class: "tool-call", "data-tool": t.name },
        h("span", { class: "call-name" }, "→ " + t.name + " · " + t.status),
        pre(t.args),
        h("div", { class: "observation" }, h("span", { class: "role" }, "result"), pre(t.result ?? null)),
      ),
    );
  }
  return side;
}

function changeItem(c: any): El {
  const what = (CHANGE_LABELS[c.kind] ?? c.kind) + (c.tool ? ": " + c.tool : "");
  return h("li", { "data-change": c.kind }, h("strong", null, what), h("div", { class: "diff-values" }, pre(c.a), pre(c.b)));
}

/** The diff pane of `view A --diff B`: each step with run A beside run B, changed steps marked and their changes listed. */
export function diffPane(diff: any): El {
  const pane = h("div", { class: "pane diff-pane", "data-pane": "diff" });
  const changes = diff.changeCount + (diff.changeCount === 1 ? " change" : " changes");
  const summary = diff.equal ? "The runs are equivalent." : changes + " between the runs.";
  pane.append(h("p", { class: "diff-summary", "data-testid": "diff-summary" }, summary));
  pane.append(h("div", { class: "diff-row diff-titles" }, h("div", null, "A: " + diff.a), h("div", null, "B: " + diff.b)));
  for (const s of diff.steps) {
    const changed = s.changes.length > 0;
    const block = h(
      "section",
      { class: changed ? "diff-step changed" : "diff-step", "data-diff-step": s.step, "data-changed": String(changed) },
      h("h3", null, (s.step === 0 ? "before the first model call" : "step " + s.step) + (changed ? " — changed" : "")),
      h("div", { class: "diff-row" }, stepSide(s.a, "a"), stepSide(s.b, "b")),
    );
    if (changed) block.append(h("ul", { class: "diff-changes" }, ...s.changes.map(changeItem)));
    pane.append(block);
  }
  return pane;
}
