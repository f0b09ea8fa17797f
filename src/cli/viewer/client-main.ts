import type { ClientLogic } from "./client-logic.js";
import type { viewerDom } from "./client-dom.js";
import type { viewerKeys } from "./client-keys.js";
import type { viewerPanels } from "./client-panels.js";
import type { ViewerState } from "./client-state.js";
import type { viewerWaterfall } from "./client-waterfall.js";

// This function runs in the browser: the page embeds its source text. The project compiles for
// Node without the DOM library, so the few browser globals it touches are declared loosely here.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;

/** The page's parts, each embedded as its own function (see page.ts). */
export interface ClientParts {
  viewerDom: typeof viewerDom;
  viewerWaterfall: typeof viewerWaterfall;
  viewerPanels: typeof viewerPanels;
  viewerKeys: typeof viewerKeys;
}

/**
 * The viewer page: reads the embedded document, draws the header and the tabs, and puts the
 * parts together: the waterfall, the panels (span detail, ATIF trajectories) and the keyboard.
 */
export function viewerMain(logic: ClientLogic, parts: ClientParts): void {
  // Taken from the arguments, not imported: the page runs this function's text on its own.
  const { formatDuration, parentIndexes } = logic;
  const doc = JSON.parse(document.getElementById("relaytrace-data").textContent);
  const rows: any[] = doc.spans;
  const state: ViewerState = {
    doc,
    rows,
    traces: doc.traces,
    parents: parentIndexes(rows),
    rowOf: new Map<string, number>(),
    collapsed: new Set<number>(),
    filter: { text: "", everywhere: false, status: "", kind: "" },
    matches: null,
    visible: [],
    selected: -1,
    currentPane: "spans",
  };
  rows.forEach((r: any, i: number) => state.rowOf.set(r.traceId + "/" + r.id, i));
  const dom = parts.viewerDom(document);
  const { h } = dom;

  // ---- header -----------------------------------------------------------------------------
  const root = document.getElementById("relaytrace-viewer");
  const t = doc.totals;
  const stat = (label: string, value: string, key: string) =>
    h("div", { class: "stat", "data-total": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
  const header = h(
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
  root.append(header);
  if (doc.notes.length > 0) root.append(h("ul", { class: "notes" }, ...doc.notes.map((n: string) => h("li", null, n))));

  const tabs = h("nav", { class: "tabs", role: "tablist" });
  const spansTab = h("button", { type: "button", role: "tab", "data-tab": "spans" }, "Spans (" + rows.length.toLocaleString() + ")");
  const trajTab = h("button", { type: "button", role: "tab", "data-tab": "trajectories" }, "Trajectories (" + t.trajectories + ")");
  tabs.append(spansTab, trajTab);
  root.append(tabs);

  // ---- the parts ---------------------------------------------------------------------------
  const waterfall = parts.viewerWaterfall(logic, dom, state, window, (i) => select(i));
  root.append(waterfall.pane);
  const panels = parts.viewerPanels(logic, dom, state, waterfall, (i) => select(i));
  root.append(panels.trajectoriesPane);

  function select(i: number): void {
    if (i < 0 || i >= rows.length) return;
    state.selected = i;
    waterfall.reveal(i);
    panels.showDetail(i);
  }

  function showPane(name: string): void {
    state.currentPane = name;
    for (const pane of [waterfall.pane, panels.trajectoriesPane]) pane.hidden = pane.getAttribute("data-pane") !== name;
    for (const tab of [spansTab, trajTab]) tab.setAttribute("aria-selected", String(tab.getAttribute("data-tab") === name));
    if (name === "spans") waterfall.draw();
  }
  parts.viewerKeys(document, state, waterfall, select, showPane);
  spansTab.addEventListener("click", () => showPane("spans"));
  trajTab.addEventListener("click", () => showPane("trajectories"));
  showPane(rows.length === 0 && doc.trajectories.length > 0 ? "trajectories" : "spans");
  waterfall.refresh();
  root.setAttribute("data-ready", "true");
}
