import type { ViewerState, Waterfall } from "./state.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What the arrow keys do on the spans pane: move the selection, fold and unfold. */
function spanKeys(state: ViewerState, waterfall: Waterfall, select: (i: number) => void): Record<string, () => void> {
  const { rows, parents, collapsed } = state;
  const move = (delta: number): void => {
    const list = state.visible.filter((v) => v >= 0);
    if (list.length === 0) return;
    const k = list.indexOf(state.selected);
    const next = k < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, k + delta));
    select(list[next]!);
  };
  const page = () => Math.max(1, Math.floor((waterfall.scroller.clientHeight || 600) / waterfall.row) - 1);
  return {
    ArrowDown: () => move(1),
    j: () => move(1),
    ArrowUp: () => move(-1),
    k: () => move(-1),
    PageDown: () => move(page()),
    PageUp: () => move(-page()),
    Home: () => move(-rows.length),
    End: () => move(rows.length),
    ArrowLeft: () => {
      const s = state.selected;
      if (s < 0) return;
      if (rows[s].last > s && !collapsed.has(s) && !state.matches) {
        collapsed.add(s);
        waterfall.refresh();
      } else if (parents[s]! >= 0) select(parents[s]!);
    },
    ArrowRight: () => {
      const s = state.selected;
      if (s < 0) return;
      if (collapsed.has(s)) {
        collapsed.delete(s);
        waterfall.refresh();
      } else if (rows[s].last > s) select(s + 1);
    },
  };
}

/**
 * The keyboard: `/` searches, Escape clears the search; on the spans pane ↑ ↓ (j k), Page Up/Down,
 * Home/End move the selection, ← folds or goes to the parent, → unfolds or goes to the first child.
 * Returns what unbinds them (a page that replaces its waterfall).
 */
export function bindKeys(
  document: any,
  state: ViewerState,
  waterfall: Waterfall,
  select: (i: number) => void,
  showPane: (name: string) => void,
): () => void {
  const keys = spanKeys(state, waterfall, select);
  const { scroller, search } = waterfall;
  const onKey = (event: any): void => {
    const typing = event.target && (event.target.tagName === "INPUT" || event.target.tagName === "SELECT");
    if (event.key === "/" && !typing) {
      event.preventDefault();
      showPane("spans");
      search.focus();
      return;
    }
    if (event.key === "Escape" && event.target === search) {
      search.value = "";
      waterfall.applyFilter();
      scroller.focus();
      return;
    }
    if (typing || state.currentPane !== "spans") return;
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
