import { rowMatches, searchText, visibleRows } from "../client-logic.js";
import { browserWindow as window, type El } from "./browser.js";
import { h } from "./dom.js";
import type { ViewerState, Waterfall } from "./state.js";
import { spanRow, traceRow } from "./waterfall-rows.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROW = 26;
const OVERSCAN = 12;

function filterSelect(label: string, any: string, values: string[]): El {
  return h(
    "select",
    { "aria-label": label, "data-testid": label + "-filter" },
    h("option", { value: "" }, any),
    ...values.map((v) => h("option", { value: v }, v)),
  );
}

/**
 * The spans pane: toolbar (search and filters), the virtualized waterfall (only the rows in view,
 * plus some overscan, are in the DOM) and the empty detail panel beside it. A click on a row
 * folds or unfolds it (on its toggle) and calls `onSelect`.
 */
export class SpansWaterfall implements Waterfall {
  readonly row = ROW;
  readonly pane = h("div", { class: "pane spans-pane", "data-pane": "spans" });
  readonly search = h("input", { type: "search", placeholder: "Search names (press /)", "aria-label": "search", "data-testid": "search" });
  readonly scroller = h("div", { class: "scroller", tabindex: "0", role: "tree", "aria-label": "spans" });
  readonly detail = h(
    "aside",
    { class: "detail", "data-testid": "span-detail", "aria-live": "polite" },
    h("p", { class: "hint" }, "Select a span (click, or ↑ ↓ and ← → to fold)."),
  );
  private readonly everywhere = h("input", { type: "checkbox", "data-testid": "search-everywhere" });
  private readonly statusSelect = filterSelect("status", "any status", ["OK", "ERROR", "UNSET"]);
  private readonly kindSelect: El;
  private readonly shown = h("span", { class: "shown", "data-testid": "shown-count" });
  private readonly spacer = h("div", { class: "spacer" });
  private readonly layer = h("div", { class: "layer" });
  private readonly textCache: (string | undefined)[] = [];
  private readonly textCacheDeep: (string | undefined)[] = [];

  constructor(
    private readonly state: ViewerState,
    private readonly onSelect: (i: number) => void,
  ) {
    const kinds = Array.from(new Set(state.rows.map((r: any) => r.kind))).sort() as string[];
    this.kindSelect = filterSelect("kind", "any kind", kinds);
    const toolbar = h(
      "div",
      { class: "toolbar" },
      this.search,
      h("label", null, this.everywhere, " in data too"),
      this.statusSelect,
      this.kindSelect,
      this.shown,
    );
    this.spacer.append(this.layer);
    this.scroller.append(this.spacer);
    this.pane.append(toolbar, h("div", { class: "split" }, h("div", { class: "waterfall" }, this.scroller), this.detail));
    if (state.rows.length === 0) this.scroller.append(h("p", { class: "hint" }, "No spans in the input."));
    this.listen();
  }

  private listen(): void {
    let timer: any;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.applyFilter(), this.state.rows.length > 20000 ? 200 : 60);
    });
    for (const control of [this.everywhere, this.statusSelect, this.kindSelect])
      control.addEventListener("change", () => this.applyFilter());
    this.scroller.addEventListener("scroll", () => window.requestAnimationFrame(() => this.draw()));
    window.addEventListener("resize", () => window.requestAnimationFrame(() => this.draw()));
    this.layer.addEventListener("click", (event: any) => this.clicked(event));
  }

  private clicked(event: any): void {
    const rowEl = event.target.closest("[data-row]");
    if (!rowEl) return;
    const i = Number(rowEl.getAttribute("data-row"));
    const { rows, collapsed } = this.state;
    if (event.target.closest(".toggle") && rows[i].last > i && !this.state.matches) {
      if (collapsed.has(i)) collapsed.delete(i);
      else collapsed.add(i);
      this.refresh();
    }
    this.onSelect(i);
    this.scroller.focus({ preventScroll: true });
  }

  draw(): void {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const visible = this.state.visible;
    const from = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const to = Math.min(visible.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const items: El[] = [];
    for (let k = from; k < to; k++) {
      const v = visible[k]!;
      items.push(v < 0 ? traceRow(this.state.traces[-1 - v], k * ROW) : spanRow(this.state, v, k * ROW));
    }
    this.layer.replaceChildren(...items);
  }

  refresh(): void {
    const { rows, traces, collapsed, parents } = this.state;
    this.state.visible = visibleRows(rows, traces, collapsed, this.state.matches, parents);
    this.spacer.style.height = this.state.visible.length * ROW + "px";
    const count = this.state.visible.filter((v) => v >= 0).length;
    this.shown.textContent = this.state.matches
      ? count.toLocaleString() + " of " + rows.length.toLocaleString() + " spans"
      : rows.length.toLocaleString() + " spans";
    this.draw();
  }

  applyFilter(): void {
    const { rows } = this.state;
    const filter = (this.state.filter = {
      text: this.search.value.trim().toLowerCase(),
      everywhere: this.everywhere.checked,
      status: this.statusSelect.value,
      kind: this.kindSelect.value,
    });
    if (filter.text === "" && filter.status === "" && filter.kind === "") {
      this.state.matches = null;
    } else {
      const cache = filter.everywhere ? this.textCacheDeep : this.textCache;
      const matches = new Uint8Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        let text = cache[i];
        if (text === undefined && filter.text !== "") text = cache[i] = searchText(rows[i], filter.everywhere);
        matches[i] = rowMatches(rows[i], text ?? "", filter) ? 1 : 0;
      }
      this.state.matches = matches;
    }
    this.refresh();
  }

  clearFilters(): void {
    this.search.value = "";
    this.statusSelect.value = "";
    this.kindSelect.value = "";
    this.applyFilter();
  }

  reveal(i: number): void {
    const { parents, collapsed } = this.state;
    // Unfold its ancestors, so the row is in the list.
    for (let p = parents[i]!; p >= 0; p = parents[p]!) collapsed.delete(p);
    this.refresh();
    let k = this.state.visible.indexOf(i);
    if (k < 0 && this.state.matches) {
      this.clearFilters();
      k = this.state.visible.indexOf(i);
    }
    if (k < 0) return;
    const top = k * ROW;
    const scroller = this.scroller;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW - scroller.clientHeight;
    this.draw();
  }
}
