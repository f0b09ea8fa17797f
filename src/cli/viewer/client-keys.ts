import type { ViewerState, Waterfall } from "./client-state.js";

// Runs in the browser: the page embeds this function's source text (see page.ts).
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The keyboard: `/` searches, Escape clears the search; on the spans pane ↑ ↓ (j k), Page Up/Down,
 * Home/End move the selection, ← folds or goes to the parent, → unfolds or goes to the first child.
 */
export function viewerKeys(
  document: any,
  state: ViewerState,
  waterfall: Waterfall,
  select: (i: number) => void,
  showPane: (name: string) => void,
): void {
  const { rows, parents, collapsed } = state;
  const { scroller, search } = waterfall;

  function move(delta: number): void {
    const list = state.visible.filter((v) => v >= 0);
    if (list.length === 0) return;
    const k = list.indexOf(state.selected);
    const next = k < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, k + delta));
    select(list[next]!);
  }

  document.addEventListener("keydown", (event: any) => {
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
    const page = Math.max(1, Math.floor((scroller.clientHeight || 600) / waterfall.row) - 1);
    const selected = state.selected;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1),
      j: () => move(1),
      ArrowUp: () => move(-1),
      k: () => move(-1),
      PageDown: () => move(page),
      PageUp: () => move(-page),
      Home: () => move(-rows.length),
      End: () => move(rows.length),
      ArrowLeft: () => {
        if (selected < 0) return;
        if (rows[selected].last > selected && !collapsed.has(selected) && !state.matches) {
          collapsed.add(selected);
          waterfall.refresh();
        } else if (parents[selected]! >= 0) select(parents[selected]!);
      },
      ArrowRight: () => {
        if (selected < 0) return;
        if (collapsed.has(selected)) {
          collapsed.delete(selected);
          waterfall.refresh();
        } else if (rows[selected].last > selected) select(selected + 1);
      },
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
}
