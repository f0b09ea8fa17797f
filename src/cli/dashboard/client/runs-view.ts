import { browserWindow as window, type El } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import type { RunSummary } from "../model.js";
import { formatCost, formatCount, formatTime } from "./format.js";
import { emptyQuery, routeHash, type RunsQuery } from "./routes.js";
import { durationText, runEvaluations, sessionLink, statusWord, tagChips, traceLink } from "./run-cells.js";
import { filterValues, runMatches, runSearchText, sortRuns, SORTS, STATUSES } from "./run-filter.js";
import type { RunStore } from "./run-store.js";

const ROW = 30;
const OVERSCAN = 10;

/** Column headers; the sortable ones are buttons that sort by their key (again: the other way). */
const COLUMNS: { label: string; sort?: string }[] = [
  { label: "" },
  { label: "started", sort: "time" },
  { label: "run" },
  { label: "session" },
  { label: "user" },
  { label: "tags" },
  { label: "status" },
  { label: "duration", sort: "duration" },
  { label: "LLM" },
  { label: "tools" },
  { label: "tokens" },
  { label: "cost", sort: "cost" },
  { label: "evaluations" },
];

function filterSelect(label: string, anyText: string): El {
  return h("select", { "aria-label": label, "data-filter": label }, h("option", { value: "" }, anyText));
}

/** Replaces a select's options when the values changed, keeping what is selected (even a value no run has any more). */
function setOptions(select: El, values: readonly string[], anyText: string, labels?: Record<string, string>): void {
  const current: string = select.value;
  const wanted = current !== "" && !values.includes(current) ? [...values, current] : [...values];
  const have = Array.from(select.options as ArrayLike<{ value: string }>)
    .slice(1)
    .map((o) => o.value);
  if (have.length === wanted.length && have.every((v, i) => v === wanted[i])) return;
  select.replaceChildren(h("option", { value: "" }, anyText), ...wanted.map((v) => h("option", { value: v }, labels?.[v] ?? v)));
  select.value = current;
}

/**
 * The runs list: filters (session, user, tag, status, search), the sort, the virtualized table
 * (only the rows in view are in the DOM) and the comparison picker: tick two runs, then Compare.
 */
export class RunsView {
  readonly el = h("div", { class: "pane runs-pane", "data-view": "runs" });
  private readonly search = h("input", { type: "search", "aria-label": "search", placeholder: "Search runs: names, ids, input, output" });
  private readonly selects = {
    session: filterSelect("session", "any session"),
    user: filterSelect("user", "any user"),
    tag: filterSelect("tag", "any tag"),
    status: filterSelect("status", "any status"),
  };
  private readonly sort = h("select", { "aria-label": "sort" }, ...SORTS.map((s) => h("option", { value: s.value }, s.label)));
  private readonly compare = h("button", { type: "button", class: "compare-button", "aria-label": "Compare", disabled: true }, "Compare");
  private readonly picked = h("span", { class: "picked hint", "data-testid": "picked-count" }, "tick two runs to compare");
  private readonly shown = h("span", { class: "shown", "data-testid": "shown-count" });
  private readonly head = h("div", { class: "run-row run-head", role: "row" });
  private readonly scroller = h("div", { class: "scroller runs-scroller", tabindex: "0", role: "rowgroup" });
  private readonly spacer = h("div", { class: "spacer" });
  private readonly layer = h("div", { class: "layer" });
  private readonly empty = h("p", { class: "hint runs-empty" });
  private readonly searchTexts = new Map<string, { version: number; text: string }>();
  private readonly picks: string[] = [];
  private list: RunSummary[] = [];
  private query: RunsQuery = emptyQuery();

  constructor(
    private readonly store: RunStore,
    private readonly onQuery: (query: RunsQuery) => void,
    private readonly onCompare: (a: string, b: string) => void,
  ) {
    setOptions(this.selects.status, [...STATUSES], "any status");
    const toolbar = h(
      "div",
      { class: "toolbar runs-toolbar" },
      this.search,
      this.selects.session,
      this.selects.user,
      this.selects.tag,
      this.selects.status,
      this.sort,
      this.compare,
      this.picked,
      this.shown,
    );
    for (const c of COLUMNS) {
      const cell = c.sort
        ? h("button", { type: "button", class: "col-sort", "data-sort-key": c.sort, title: "sort by " + c.label }, c.label)
        : h("span", null, c.label);
      this.head.append(h("div", { class: "cell", role: "columnheader" }, cell));
    }
    this.spacer.append(this.layer);
    this.scroller.append(this.spacer);
    this.el.append(toolbar, h("div", { class: "runs-table", role: "table", "aria-label": "runs" }, this.head, this.empty, this.scroller));
    this.listen();
  }

  private listen(): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.controlsChanged(), 80);
    });
    for (const s of [...Object.values(this.selects), this.sort]) s.addEventListener("change", () => this.controlsChanged());
    this.head.addEventListener("click", (event: El) => {
      const key = event.target.closest("[data-sort-key]")?.getAttribute("data-sort-key");
      if (!key) return;
      this.sort.value = this.sort.value === key + "-desc" ? key + "-asc" : key + "-desc";
      this.controlsChanged();
    });
    this.layer.addEventListener("change", (event: El) => {
      const id = event.target.closest("[data-run-id]")?.getAttribute("data-run-id");
      if (id && event.target.type === "checkbox") this.pick(id, event.target.checked);
    });
    this.compare.addEventListener("click", () => this.compareNow());
    this.scroller.addEventListener("scroll", () => window.requestAnimationFrame(() => this.draw()));
    window.addEventListener("resize", () => window.requestAnimationFrame(() => this.draw()));
  }

  /** Shows the filters and order a route names. */
  setQuery(query: RunsQuery): void {
    this.query = { ...query };
    this.search.value = query.q;
    for (const key of ["session", "user", "tag", "status"] as const) {
      const select = this.selects[key];
      if (query[key] !== "" && !Array.from(select.options as ArrayLike<{ value: string }>).some((o) => o.value === query[key]))
        select.append(h("option", { value: query[key] }, query[key]));
      select.value = query[key];
    }
    this.sort.value = SORTS.some((s) => s.value === query.sort) ? query.sort : SORTS[0]!.value;
    this.refresh();
  }

  private controlsChanged(): void {
    this.query = {
      session: this.selects.session.value,
      user: this.selects.user.value,
      tag: this.selects.tag.value,
      status: this.selects.status.value,
      q: this.search.value.trim(),
      sort: this.sort.value,
    };
    this.onQuery(this.query);
    this.refresh();
  }

  private textOf(run: RunSummary): string {
    const cached = this.searchTexts.get(run.id);
    if (cached && cached.version === run.version) return cached.text;
    const text = runSearchText(run);
    this.searchTexts.set(run.id, { version: run.version, text });
    return text;
  }

  /** Filters and sorts again (after a change of the runs or the controls) and redraws. */
  refresh(): void {
    const runs = [...this.store.runs.values()];
    const values = filterValues(runs);
    setOptions(this.selects.session, values.session, "any session");
    setOptions(this.selects.user, values.user, "any user");
    setOptions(this.selects.tag, values.tag, "any tag");
    const matching = runs.filter((r) => runMatches(r, this.query, this.textOf(r)));
    this.list = sortRuns(matching, this.query.sort, Date.now() * 1000);
    this.spacer.style.height = this.list.length * ROW + "px";
    this.shown.textContent = formatCount(this.list.length) + " of " + formatCount(runs.length) + " runs";
    const info = this.store.info;
    this.empty.textContent =
      runs.length > 0
        ? this.list.length === 0
          ? "No run matches the filters."
          : ""
        : info?.ready
          ? "No runs in " + info.dir + " yet."
          : "Reading…";
    this.empty.hidden = this.empty.textContent === "";
    for (let k = this.picks.length - 1; k >= 0; k--) if (!this.store.runs.has(this.picks[k]!)) this.picks.splice(k, 1);
    this.showPicks();
    this.draw();
  }

  private pick(id: string, on: boolean): void {
    const k = this.picks.indexOf(id);
    if (on && k < 0) this.picks.push(id);
    if (!on && k >= 0) this.picks.splice(k, 1);
    // Two at most: a third pick replaces the oldest.
    while (this.picks.length > 2) this.picks.shift();
    this.showPicks();
    this.draw();
  }

  private showPicks(): void {
    this.compare.disabled = this.picks.length !== 2;
    this.picked.textContent =
      this.picks.length === 2 ? "2 runs picked" : this.picks.length === 1 ? "1 run picked: tick one more" : "tick two runs to compare";
  }

  /** The earlier run is A, the later B. */
  private compareNow(): void {
    if (this.picks.length !== 2) return;
    const [x, y] = this.picks.map((id) => this.store.runs.get(id)!);
    const [a, b] = x!.start <= y!.start ? [x!, y!] : [y!, x!];
    this.onCompare(a.id, b.id);
  }

  draw(): void {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const from = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const to = Math.min(this.list.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const rows: El[] = [];
    for (let k = from; k < to; k++) rows.push(this.row(this.list[k]!, k * ROW));
    this.layer.replaceChildren(...rows);
  }

  private row(run: RunSummary, top: number): El {
    const picked = this.picks.includes(run.id);
    const box = h("input", { type: "checkbox", "aria-label": "pick for comparison", "data-testid": "compare-pick" });
    box.checked = picked;
    const cell = (...children: unknown[]) => h("div", { class: "cell", role: "cell" }, ...children);
    const el = h(
      "div",
      { class: picked ? "run-row picked" : "run-row", role: "row", "data-run-id": run.id, "data-status": run.status },
      cell(box),
      cell(h("span", { class: "time" }, formatTime(run.start))),
      cell(traceLink(run, run.name || "(unnamed)")),
      cell(sessionLink(run.sessionId)),
      cell(run.userId ?? ""),
      cell(...tagChips(run.tags)),
      cell(statusWord(run)),
      cell(durationText(run)),
      cell(formatCount(run.llmCalls)),
      cell(formatCount(run.toolCalls)),
      cell(formatCount(run.tokens)),
      cell(formatCost(run.costUsd)),
      cell(...runEvaluations(run)),
    );
    el.style.top = top + "px";
    return el;
  }

  /** The runs list's own URL for the current filters. */
  hash(): string {
    return routeHash({ view: "runs", query: this.query });
  }
}
