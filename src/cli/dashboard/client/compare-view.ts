import { formatDuration } from "../../viewer/client-logic.js";
import type { El } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import type { RunChange } from "../../../diff/changes.js";
import type { RunStep } from "../../../diff/steps.js";
import type { CompareAnswer, RunSummary } from "../model.js";
import { fetchJson } from "./api.js";
import { runFacts, traceLink } from "./run-cells.js";
import { diffValues, wholeValue, type Piece, type ValueDiff } from "./value-diff.js";

const CHANGE_LABELS: Record<string, string> = {
  tool_call_added: "tool call added",
  tool_call_removed: "tool call removed",
  tool_args_changed: "tool arguments",
  tool_result_changed: "tool result",
  output_changed: "model output",
  status_changed: "status",
  usage_changed: "tokens and cost",
};

/**
 * One side's text, each differing piece its own element carrying `data-change` (changed, added
 * or removed); the text around it carries none.
 */
function piecesPre(pieces: readonly Piece[], run: "a" | "b"): El {
  const el = h("pre", { class: "json diff-value", "data-run": run });
  for (const p of pieces) el.append(p.change ? h("span", { class: "diff-mark", "data-change": p.change }, p.text) : p.text);
  return el;
}

function absent(run: "a" | "b", text: string): El {
  return h("p", { class: "hint diff-value", "data-run": run }, text);
}

/** What a change looks like on each side: the values compared field by field, or one side shown whole. */
function changeValues(c: RunChange): { a: El; b: El } {
  if (c.kind === "tool_call_added") return { a: absent("a", "no such call in run A"), b: piecesPre(wholeValue(c.b, "added"), "b") };
  if (c.kind === "tool_call_removed") return { a: piecesPre(wholeValue(c.a, "removed"), "a"), b: absent("b", "no such call in run B") };
  if (c.kind === "status_changed" && (c.a === null || c.b === null)) {
    const call = { status: c.a ?? c.b, ...(c.call ?? {}) };
    return c.a === null
      ? { a: absent("a", "no such model call in run A"), b: piecesPre(wholeValue(call, "added"), "b") }
      : { a: piecesPre(wholeValue(call, "removed"), "a"), b: absent("b", "no such model call in run B") };
  }
  const diff: ValueDiff = diffValues(c.a, c.b);
  return { a: piecesPre(diff.a, "a"), b: piecesPre(diff.b, "b") };
}

function changeBlock(c: RunChange): El {
  const title = (CHANGE_LABELS[c.kind] ?? c.kind) + ("tool" in c ? ": " + c.tool : "");
  const { a, b } = changeValues(c);
  const latency =
    c.kind === "usage_changed" && (c.latencyMs.a !== null || c.latencyMs.b !== null)
      ? h("p", { class: "hint" }, "latency " + (c.latencyMs.a ?? "?") + " ms → " + (c.latencyMs.b ?? "?") + " ms (not compared)")
      : null;
  return h(
    "div",
    { class: "change", "data-change-kind": c.kind },
    h("div", { class: "change-title" }, title),
    h("div", { class: "diff-values" }, a, b),
    latency,
  );
}

/** A step's side in one line: the model call's status, tokens and latency, its reply's start, the tools it called. */
function stepLine(step: RunStep | null, run: "a" | "b"): El {
  if (!step) return h("div", { class: "diff-side hint", "data-run": run }, "no such step in this run");
  const m = step.model;
  const parts: string[] = [];
  if (m) {
    const u = m.usage;
    const tokens = u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
    parts.push(
      m.status + (tokens ? " · " + tokens + " tokens" : "") + (m.latencyUs !== undefined ? " · " + formatDuration(m.latencyUs) : ""),
    );
  }
  if (step.tools.length > 0) parts.push("→ " + step.tools.map((t) => t.name).join(", "));
  const text =
    m?.text !== undefined && m.text !== ""
      ? h("div", { class: "text step-text" }, m.text.length > 300 ? m.text.slice(0, 300) + "…" : m.text)
      : null;
  return h("div", { class: "diff-side", "data-run": run }, h("div", { class: "hint" }, parts.join(" ")), text);
}

function stepBlock(s: CompareAnswer["diff"]["steps"][number]): El {
  const differs = s.changes.length > 0;
  const title =
    (s.step === 0 ? "before the first model call" : "step " + s.step) +
    (differs ? " — " + s.changes.length + " " + (s.changes.length === 1 ? "change" : "changes") : " — same");
  return h(
    "section",
    { class: differs ? "diff-step differs" : "diff-step", "data-diff-step": s.step, "data-changed": String(differs) },
    h("h3", null, title),
    h("div", { class: "diff-row" }, stepLine(s.a, "a"), stepLine(s.b, "b")),
    ...s.changes.map(changeBlock),
  );
}

function runHead(run: RunSummary, side: "A" | "B"): El {
  return h(
    "div",
    { class: "compare-run", "data-run": side.toLowerCase() },
    h("h3", null, side + ": ", traceLink(run, run.name || "(unnamed)")),
    runFacts(run),
  );
}

/** Two runs side by side: each run's facts, then step by step what `relaytrace diff` finds, each changed value marked where it changed. */
export class CompareView {
  readonly el = h("div", { class: "pane compare-view", "data-view": "compare" });

  constructor(a: string, b: string) {
    this.el.setAttribute("data-compare", a + "/" + b);
    this.el.append(h("p", { class: "hint" }, "Comparing the runs…"));
    void this.load(a, b);
  }

  private async load(a: string, b: string): Promise<void> {
    let answer: CompareAnswer;
    try {
      answer = await fetchJson<CompareAnswer>("/api/compare?a=" + a + "&b=" + b);
    } catch (error) {
      this.el.replaceChildren(h("p", { class: "error" }, "Cannot compare these runs: " + (error as Error).message));
      return;
    }
    const { diff } = answer;
    const count = diff.changeCount + (diff.changeCount === 1 ? " change" : " changes");
    this.el.replaceChildren(
      h(
        "div",
        { class: "view-head" },
        h("h2", null, "Comparison"),
        h("div", { class: "diff-row" }, runHead(answer.a, "A"), runHead(answer.b, "B")),
      ),
      h(
        "p",
        { class: "diff-summary", "data-testid": "diff-summary" },
        diff.equal ? "The runs are equivalent." : count + " between the runs.",
      ),
      ...diff.steps.map(stepBlock),
    );
    this.el.setAttribute("data-loaded", "true");
  }

  dispose(): void {}
}
