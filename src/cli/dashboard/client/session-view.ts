import { formatDuration } from "../../viewer/client-logic.js";
import type { El } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import type { RunSummary } from "../model.js";
import { formatCost, formatCount, formatTime } from "./format.js";
import { emptyQuery, routeHash } from "./routes.js";
import { durationText, runEvaluations, statusWord, tagChips, traceLink } from "./run-cells.js";
import type { RunStore } from "./run-store.js";

/** One run of the session: when, what, how it went, and what went in and came out. */
function sessionRun(run: RunSummary, n: number): El {
  return h(
    "li",
    { class: "session-run", "data-run-id": run.id, "data-status": run.status },
    h(
      "div",
      { class: "session-run-head" },
      h("span", { class: "step-no" }, "#" + n),
      h("span", { class: "time" }, formatTime(run.start)),
      traceLink(run, run.name || "(unnamed)"),
      statusWord(run),
      h(
        "span",
        { class: "hint" },
        [durationText(run), formatCount(run.tokens) + " tokens", formatCost(run.costUsd)].filter(Boolean).join(" · "),
      ),
      run.userId !== undefined ? h("span", { class: "hint" }, "user " + run.userId) : null,
      ...tagChips(run.tags),
      ...runEvaluations(run),
    ),
    run.input !== undefined
      ? h("div", { class: "turn turn-in" }, h("span", { class: "role" }, "in"), h("div", { class: "text" }, run.input))
      : null,
    run.output !== undefined
      ? h("div", { class: "turn turn-out" }, h("span", { class: "role" }, "out"), h("div", { class: "text" }, run.output))
      : null,
  );
}

/** Totals of the session's runs, for its header. */
function sessionFacts(runs: readonly RunSummary[]): El {
  const users = [...new Set(runs.map((r) => r.userId).filter((u) => u !== undefined))];
  const cost = runs.reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
  const costs = runs.some((r) => r.costUsd !== undefined);
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  const span = (last.end ?? last.start) - first.start;
  const dl = h("dl", { class: "facts run-facts" });
  const fact = (k: string, v: string) => dl.append(h("dt", null, k), h("dd", null, v));
  fact(
    "runs",
    formatCount(runs.length) +
      (runs.some((r) => r.status === "error") ? " (" + runs.filter((r) => r.status === "error").length + " with errors)" : ""),
  );
  if (users.length > 0) fact("user", users.join(", "));
  fact("from", formatTime(first.start) + " for " + formatDuration(span));
  fact("tokens", formatCount(runs.reduce((sum, r) => sum + r.tokens, 0)));
  if (costs) fact("cost", formatCost(cost));
  return dl;
}

/** A session: its runs in time order, each with its input and output; follows new runs as they come. */
export class SessionView {
  readonly el = h("div", { class: "pane session-view", "data-view": "session" });
  private readonly stop: () => void;

  constructor(
    private readonly store: RunStore,
    private readonly id: string,
  ) {
    this.el.setAttribute("data-session-id", id);
    this.stop = store.onChange(() => this.draw());
    this.draw();
  }

  draw(): void {
    const runs = [...this.store.runs.values()]
      .filter((r) => r.sessionId === this.id)
      .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
    const back = h("a", { href: routeHash({ view: "runs", query: { ...emptyQuery(), session: this.id } }) }, "show in the runs list");
    const head = h("div", { class: "view-head" }, h("h2", null, h("span", { class: "hint" }, "session "), this.id));
    if (runs.length === 0) {
      this.el.replaceChildren(
        head,
        h("p", { class: "hint" }, this.store.info?.ready ? "No run of this session is in the directory." : "Reading…"),
      );
      return;
    }
    const list = h("ol", { class: "session-runs" }, ...runs.map((r, i) => sessionRun(r, i + 1)));
    head.append(sessionFacts(runs), h("p", { class: "hint" }, back));
    this.el.replaceChildren(head, list);
    this.el.setAttribute("data-loaded", "true");
  }

  dispose(): void {
    this.stop();
  }
}
