import { axisTicks, barPlacement, formatDuration } from "../client-logic.js";
import type { El } from "./browser.js";
import { h, shortId } from "./dom.js";
import { evaluationBadges } from "./evaluations.js";
import type { ViewerState } from "./state.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The index of the trace that holds row `i` (traces are in row order). */
export function traceIndexOf(traces: readonly any[], i: number): number {
  let lo = 0;
  let hi = traces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (traces[mid].first <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A trace's header row: its id, size, duration and the time axis. */
export function traceRow(tr: any, top: number): El {
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

function nameCell(state: ViewerState, i: number): El {
  const r = state.rows[i];
  const hasKids = r.last > i;
  const folded = state.collapsed.has(i) && !state.matches;
  const name = h(
    "div",
    { class: "cell name" },
    h("span", { class: "toggle", "aria-hidden": "true" }, hasKids ? (folded ? "▸" : "▾") : ""),
    h("span", { class: "kind", "data-kind": r.kind }, r.kind),
    h("span", { class: "span-name" }, r.name),
    h("span", { class: "status", "data-status": r.status }, r.status),
    r.suspended ? h("span", { class: "badge" }, "suspended") : null,
    r.resumes ? h("span", { class: "badge" }, "resumed") : null,
    r.diff ? h("span", { class: "badge changed", "data-changed": r.diff }, r.diff) : null,
    ...evaluationBadges(r.evaluations),
  );
  name.style.paddingLeft = 6 + Math.min(r.depth, 40) * 14 + "px";
  return name;
}

/** The gap a suspension left before the span that resumes it. */
function suspensionGap(state: ViewerState, r: any, tr: any): El | null {
  const from = r.resumes ? state.rowOf.get(r.traceId + "/" + r.resumes) : undefined;
  if (from === undefined) return null;
  const before = state.rows[from];
  const g = barPlacement(before.end, r.start, tr.start, tr.end);
  const gap = h("div", { class: "gap", title: "suspended " + formatDuration(r.start - before.end) });
  gap.style.left = g.left + "%";
  gap.style.width = g.width + "%";
  return gap;
}

/** The duration label sits after the bar, else before it, else inside it. */
function durationLabel(r: any, p: { left: number; width: number }): El {
  const label = h("span", { class: "duration" }, formatDuration(r.end - r.start));
  if (p.left + p.width <= 86) label.style.left = p.left + p.width + "%";
  else if (p.left >= 14) label.style.right = 100 - p.left + "%";
  else {
    label.className = "duration inside";
    label.style.right = Math.max(0, 100 - p.left - p.width) + "%";
  }
  return label;
}

function timelineCell(state: ViewerState, r: any, tr: any): El {
  const timeline = h("div", { class: "cell timeline" });
  const gap = suspensionGap(state, r, tr);
  if (gap) timeline.append(gap);
  const p = barPlacement(r.start, r.end, tr.start, tr.end);
  const bar = h("div", { class: "bar", "data-kind": r.kind, "data-status": r.status });
  bar.style.left = p.left + "%";
  bar.style.width = p.width + "%";
  timeline.append(bar, durationLabel(r, p));
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
  return timeline;
}

/** Row `i` of the waterfall at `top` px: its name cell and its bar on the trace's axis. */
export function spanRow(state: ViewerState, i: number, top: number): El {
  const r = state.rows[i];
  const tr = state.traces[traceIndexOf(state.traces, i)];
  const selected = i === state.selected;
  const el = h(
    "div",
    {
      class: selected ? "row selected" : "row",
      role: "treeitem",
      "aria-level": r.depth + 1,
      "aria-selected": selected ? "true" : "false",
      "aria-expanded": r.last > i ? String(!state.collapsed.has(i)) : undefined,
      "data-span-id": r.id,
      "data-trace-id": r.traceId,
      "data-status": r.status,
      "data-kind": r.kind,
      "data-row": i,
    },
    nameCell(state, i),
    timelineCell(state, r, tr),
  );
  el.style.top = top + "px";
  return el;
}
