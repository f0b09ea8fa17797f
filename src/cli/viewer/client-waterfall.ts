import type { ClientLogic } from "./client-logic.js";
import type { ViewerDom } from "./client-dom.js";
import type { ViewerState, Waterfall } from "./client-state.js";

// Runs in the browser: the page embeds this function's source text (see page.ts).
/* eslint-disable @typescript-eslint/no-explicit-any */
type El = any;

/**
 * The spans pane: toolbar (search and filters), the virtualized waterfall (only the rows in view,
 * plus some overscan, are in the DOM) and the empty detail panel beside it. A click on a row
 * folds or unfolds it (on its toggle) and calls `onSelect`.
 */
export function viewerWaterfall(
  logic: ClientLogic,
  dom: ViewerDom,
  state: ViewerState,
  window: any,
  onSelect: (i: number) => void,
): Waterfall {
  const { axisTicks, barPlacement, formatDuration, rowMatches, searchText, visibleRows } = logic;
  const { h, shortId } = dom;
  const { rows, traces, parents, rowOf, collapsed } = state;
  const ROW = 26;
  const OVERSCAN = 12;
  const textCache: (string | undefined)[] = [];
  const textCacheDeep: (string | undefined)[] = [];

  const pane = h("div", { class: "pane spans-pane", "data-pane": "spans" });
  const search = h("input", { type: "search", placeholder: "Search names (press /)", "aria-label": "search", "data-testid": "search" });
  const everywhere = h("input", { type: "checkbox", "data-testid": "search-everywhere" });
  const statusSelect = h(
    "select",
    { "aria-label": "status", "data-testid": "status-filter" },
    h("option", { value: "" }, "any status"),
    ...["OK", "ERROR", "UNSET"].map((s) => h("option", { value: s }, s)),
  );
  const kinds = Array.from(new Set(rows.map((r: any) => r.kind))).sort() as string[];
  const kindSelect = h(
    "select",
    { "aria-label": "kind", "data-testid": "kind-filter" },
    h("option", { value: "" }, "any kind"),
    ...kinds.map((k) => h("option", { value: k }, k)),
  );
  const shown = h("span", { class: "shown", "data-testid": "shown-count" });
  const toolbar = h("div", { class: "toolbar" }, search, h("label", null, everywhere, " in data too"), statusSelect, kindSelect, shown);
  const scroller = h("div", { class: "scroller", tabindex: "0", role: "tree", "aria-label": "spans" });
  const spacer = h("div", { class: "spacer" });
  const layer = h("div", { class: "layer" });
  spacer.append(layer);
  scroller.append(spacer);
  const detail = h(
    "aside",
    { class: "detail", "data-testid": "span-detail", "aria-live": "polite" },
    h("p", { class: "hint" }, "Select a span (click, or ↑ ↓ and ← → to fold)."),
  );
  const split = h("div", { class: "split" }, h("div", { class: "waterfall" }, scroller), detail);
  pane.append(toolbar, split);
  if (rows.length === 0) scroller.append(h("p", { class: "hint" }, "No spans in the input."));

  function traceIndexOf(i: number): number {
    let lo = 0;
    let hi = traces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (traces[mid].first <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  function traceRow(ti: number, top: number): El {
    const tr = traces[ti];
    const duration = tr.end - tr.start;
    const axis = h("div", { class: "cell timeline axis" });
    for (const tick of axisTicks(duration, 6)) {
      const left = duration > 0 ? (tick / duration) * 100 : 0;
      if (left > 100) continue;
      const mark = h("span", { class: "tick" }, formatDuration(tick));
      mark.style.left = left + "%";
      axis.append(mark);
    }
    const el = h(
      "div",
      { class: "trace-row", "data-trace-id": tr.traceId },
      h(
        "div",
        { class: "cell name" },
        h("strong", null, "trace " + shortId(tr.traceId)),
        " · " + tr.count.toLocaleString() + " spans · " + formatDuration(duration),
      ),
      axis,
    );
    el.style.top = top + "px";
    return el;
  }

  function spanRow(i: number, top: number): El {
    const r = rows[i];
    const tr = traces[traceIndexOf(i)];
    const hasKids = r.last > i;
    const toggle = h("span", { class: "toggle", "aria-hidden": "true" }, hasKids ? (collapsed.has(i) && !state.matches ? "▸" : "▾") : "");
    const name = h(
      "div",
      { class: "cell name" },
      toggle,
      h("span", { class: "kind", "data-kind": r.kind }, r.kind),
      h("span", { class: "span-name" }, r.name),
      h("span", { class: "status", "data-status": r.status }, r.status),
      r.suspended ? h("span", { class: "badge" }, "suspended") : null,
      r.resumes ? h("span", { class: "badge" }, "resumed") : null,
    );
    name.style.paddingLeft = 6 + Math.min(r.depth, 40) * 14 + "px";
    const timeline = h("div", { class: "cell timeline" });
    if (r.resumes) {
      const from = rowOf.get(r.traceId + "/" + r.resumes);
      if (from !== undefined) {
        const g = barPlacement(rows[from].end, r.start, tr.start, tr.end);
        const gap = h("div", { class: "gap", title: "suspended " + formatDuration(r.start - rows[from].end) });
        gap.style.left = g.left + "%";
        gap.style.width = g.width + "%";
        timeline.append(gap);
      }
    }
    const p = barPlacement(r.start, r.end, tr.start, tr.end);
    const bar = h("div", { class: "bar", "data-kind": r.kind, "data-status": r.status });
    bar.style.left = p.left + "%";
    bar.style.width = p.width + "%";
    timeline.append(bar);
    // The duration sits after the bar, else before it, else inside it.
    const label = h("span", { class: "duration" }, formatDuration(r.end - r.start));
    if (p.left + p.width <= 86) label.style.left = p.left + p.width + "%";
    else if (p.left >= 14) label.style.right = 100 - p.left + "%";
    else {
      label.className = "duration inside";
      label.style.right = Math.max(0, 100 - p.left - p.width) + "%";
    }
    timeline.append(label);
    for (const m of r.marks) {
      const mp = barPlacement(m.time, m.time, tr.start, tr.end);
      const dot = h("span", {
        class: m.pending ? "mark pending" : "mark",
        title: (m.pending ? "pending mark " : "mark ") + m.name,
        "data-mark": m.name,
      });
      dot.style.left = mp.left + "%";
      timeline.append(dot);
    }
    const selected = state.selected;
    const el = h(
      "div",
      {
        class: i === selected ? "row selected" : "row",
        role: "treeitem",
        "aria-level": r.depth + 1,
        "aria-selected": i === selected ? "true" : "false",
        "aria-expanded": hasKids ? String(!collapsed.has(i)) : undefined,
        "data-span-id": r.id,
        "data-trace-id": r.traceId,
        "data-status": r.status,
        "data-kind": r.kind,
        "data-row": i,
      },
      name,
      timeline,
    );
    el.style.top = top + "px";
    return el;
  }

  function draw(): void {
    const top = scroller.scrollTop;
    const height = scroller.clientHeight || 600;
    const visible = state.visible;
    const from = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const to = Math.min(visible.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const items: El[] = [];
    for (let k = from; k < to; k++) {
      const v = visible[k]!;
      items.push(v < 0 ? traceRow(-1 - v, k * ROW) : spanRow(v, k * ROW));
    }
    layer.replaceChildren(...items);
  }

  function refresh(): void {
    state.visible = visibleRows(rows, traces, collapsed, state.matches, parents);
    spacer.style.height = state.visible.length * ROW + "px";
    const count = state.visible.filter((v) => v >= 0).length;
    shown.textContent = state.matches
      ? count.toLocaleString() + " of " + rows.length.toLocaleString() + " spans"
      : rows.length.toLocaleString() + " spans";
    draw();
  }

  function applyFilter(): void {
    const filter = (state.filter = {
      text: search.value.trim().toLowerCase(),
      everywhere: everywhere.checked,
      status: statusSelect.value,
      kind: kindSelect.value,
    });
    if (filter.text === "" && filter.status === "" && filter.kind === "") {
      state.matches = null;
    } else {
      const cache = filter.everywhere ? textCacheDeep : textCache;
      const matches = new Uint8Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        let text = cache[i];
        if (text === undefined && filter.text !== "") text = cache[i] = searchText(rows[i], filter.everywhere);
        matches[i] = rowMatches(rows[i], text ?? "", filter) ? 1 : 0;
      }
      state.matches = matches;
    }
    refresh();
  }

  function clearFilters(): void {
    search.value = "";
    statusSelect.value = "";
    kindSelect.value = "";
    applyFilter();
  }

  let timer: any;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(applyFilter, rows.length > 20000 ? 200 : 60);
  });
  for (const control of [everywhere, statusSelect, kindSelect]) control.addEventListener("change", applyFilter);
  scroller.addEventListener("scroll", () => window.requestAnimationFrame(draw));
  window.addEventListener("resize", () => window.requestAnimationFrame(draw));

  function reveal(i: number): void {
    // Unfold its ancestors, so the row is in the list.
    for (let p = parents[i]!; p >= 0; p = parents[p]!) collapsed.delete(p);
    refresh();
    let k = state.visible.indexOf(i);
    if (k < 0 && state.matches) {
      clearFilters();
      k = state.visible.indexOf(i);
    }
    if (k < 0) return;
    const top = k * ROW;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW - scroller.clientHeight;
    draw();
  }

  layer.addEventListener("click", (event: any) => {
    const rowEl = event.target.closest("[data-row]");
    if (!rowEl) return;
    const i = Number(rowEl.getAttribute("data-row"));
    if (event.target.closest(".toggle") && rows[i].last > i && !state.matches) {
      if (collapsed.has(i)) collapsed.delete(i);
      else collapsed.add(i);
      refresh();
    }
    onSelect(i);
    scroller.focus({ preventScroll: true });
  });

  return { pane, detail, scroller, search, row: ROW, draw, refresh, applyFilter, clearFilters, reveal };
}
