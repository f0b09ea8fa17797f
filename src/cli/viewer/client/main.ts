import { formatDuration } from "../client-logic.js";
import { browserDocument as document, type El } from "./browser.js";
import { h } from "./dom.js";
import { diffPane } from "./diff-pane.js";
import { bindKeys } from "./keys.js";
import { SpanDetail } from "./span-detail.js";
import { viewerState, type ViewerState } from "./state.js";
import { trajectoriesPane } from "./trajectories.js";
import { SpansWaterfall } from "./waterfall.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The header: title, sources, totals. */
function header(doc: any): El {
  const t = doc.totals;
  const stat = (label: string, value: string, key: string) =>
    h("div", { class: "stat", "data-total": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
  return h(
    "header",
    { class: "top" },
    h("div", { class: "title" }, h("h1", null, doc.title), h("div", { class: "sources" }, doc.sources.join(" · "))),
    h(
      "div",
      { class: "stats" },
      stat("spans", t.spans.toLocaleString(), "spans"),
      stat("errors", t.errors.toLocaleString(), "errors"),
      stat("traces", t.traces.toLocaleString(), "traces"),
      stat("tokens", t.tokens.toLocaleString(), "tokens"),
      stat("wall time", formatDuration(t.wallTime), "wall-time"),
      t.trajectories > 0 ? stat("ATIF steps", t.steps.toLocaleString(), "steps") : null,
    ),
  );
}

/** The tabs and the panes they show, one pane at a time. */
function tabbedPanes(root: El, state: ViewerState, panes: { name: string; label: string; pane: El }[], onShow: (name: string) => void) {
  const tabs = panes.map((p) => h("button", { type: "button", role: "tab", "data-tab": p.name }, p.label));
  root.append(h("nav", { class: "tabs", role: "tablist" }, ...tabs));
  for (const p of panes) root.append(p.pane);
  const showPane = (name: string): void => {
    state.currentPane = name;
    for (const p of panes) p.pane.hidden = p.name !== name;
    for (const tab of tabs) tab.setAttribute("aria-selected", String(tab.getAttribute("data-tab") === name));
    onShow(name);
  };
  tabs.forEach((tab, k) => tab.addEventListener("click", () => showPane(panes[k]!.name)));
  return showPane;
}

/**
 * The viewer page: reads the embedded document, draws the header and the tabs, and puts the
 * parts together: the waterfall, the span detail, the ATIF trajectories and the keyboard.
 */
function startViewer(): void {
  const doc = JSON.parse(document.getElementById("relaytrace-data").textContent);
  const state = viewerState(doc);
  const root = document.getElementById("relaytrace-viewer");
  root.append(header(doc));
  if (doc.notes.length > 0) root.append(h("ul", { class: "notes" }, ...doc.notes.map((n: string) => h("li", null, n))));
  const select = (i: number): void => {
    if (i < 0 || i >= state.rows.length) return;
    state.selected = i;
    waterfall.reveal(i);
    waterfall.detail.replaceChildren(...detail.parts(i));
    waterfall.detail.setAttribute("data-selected", state.rows[i].id);
    waterfall.draw();
  };
  const waterfall = new SpansWaterfall(state, select);
  const detail = new SpanDetail(state, select);
  const panes = [
    { name: "spans", label: "Spans (" + state.rows.length.toLocaleString() + ")", pane: waterfall.pane },
    { name: "trajectories", label: "Trajectories (" + doc.totals.trajectories + ")", pane: trajectoriesPane(doc.trajectories) },
  ];
  if (doc.diff)
    panes.push({ name: "diff", label: "Diff (" + (doc.diff.equal ? "equivalent" : doc.diff.changeCount) + ")", pane: diffPane(doc.diff) });
  const showPane = tabbedPanes(root, state, panes, (name) => name === "spans" && waterfall.draw());
  bindKeys(document, state, waterfall, select, showPane);
  showPane(doc.diff ? "diff" : state.rows.length === 0 && doc.trajectories.length > 0 ? "trajectories" : "spans");
  waterfall.refresh();
  root.setAttribute("data-ready", "true");
}

startViewer();
