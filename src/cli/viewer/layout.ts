import type { AtifStep, AtifTrajectory } from "../../../exporters/atif/types.js";
import type { ViewDoc, ViewSpan, ViewTotals, ViewTrace } from "./model.js";

type Row = ViewDoc["spans"][number];

/**
 * Orders spans for the waterfall: traces by start time, each depth-first with children in start
 * order (an explicit stack, so a deep file cannot overflow the call stack). Links each
 * suspended tool call to the span that resumed it.
 */
export function layoutSpans(input: readonly ViewSpan[]): { spans: Row[]; traces: ViewTrace[] } {
  const byId = new Map<string, ViewSpan>();
  for (const s of input) if (!byId.has(`${s.traceId}/${s.id}`)) byId.set(`${s.traceId}/${s.id}`, s);
  const children = new Map<ViewSpan, ViewSpan[]>();
  const roots: ViewSpan[] = [];
  for (const s of byId.values()) {
    const parent = s.parentId !== null ? byId.get(`${s.traceId}/${s.parentId}`) : undefined;
    if (parent && parent !== s) {
      let list = children.get(parent);
      if (!list) children.set(parent, (list = []));
      list.push(s);
    } else {
      roots.push(s);
    }
  }
  const byStart = (a: ViewSpan, b: ViewSpan) => a.start - b.start || a.end - b.end;
  for (const list of children.values()) list.sort(byStart);

  // One trace per trace id; its roots in start order.
  const rootsOf = new Map<string, ViewSpan[]>();
  for (const r of roots) {
    let list = rootsOf.get(r.traceId);
    if (!list) rootsOf.set(r.traceId, (list = []));
    list.push(r);
  }
  const traceGroups = [...rootsOf.entries()].map(([traceId, list]) => ({ traceId, list: list.sort(byStart) }));
  traceGroups.sort((a, b) => a.list[0]!.start - b.list[0]!.start);

  const rows: Row[] = [];
  const traces: ViewTrace[] = [];
  const seen = new Set<ViewSpan>();
  for (const { traceId, list } of traceGroups) {
    const first = rows.length;
    let start = Infinity;
    let end = -Infinity;
    const stack: { span: ViewSpan; depth: number }[] = [];
    for (let i = list.length - 1; i >= 0; i--) stack.push({ span: list[i]!, depth: 0 });
    const open: Row[] = []; // ancestors of the row being placed, to close their `last`
    while (stack.length > 0) {
      const { span, depth } = stack.pop()!;
      if (seen.has(span)) continue; // a cycle in hostile input: each span is placed once
      seen.add(span);
      while (open.length > depth) open.pop()!.last = rows.length - 1;
      const row: Row = Object.assign(span, { depth, last: rows.length });
      rows.push(row);
      open.push(row);
      start = Math.min(start, span.start);
      end = Math.max(end, span.end);
      for (const m of span.marks) {
        if (m.time < start) start = m.time;
        if (m.time > end) end = m.time;
      }
      const kids = children.get(span) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i]!, depth: depth + 1 });
    }
    while (open.length > 0) open.pop()!.last = rows.length - 1;
    traces.push({ traceId, start, end, first, count: rows.length - first });
  }
  linkResumes(rows);
  return { spans: rows, traces };
}

/** A suspended call and its resumption: by the recorded retry link, else the next span of the same tool call in the trace. */
function linkResumes(rows: Row[]): void {
  const index = new Map<string, Row>();
  for (const r of rows) index.set(`${r.traceId}/${r.id}`, r);
  const waiting = new Map<string, Row>();
  for (const r of rows.slice().sort((a, b) => a.start - b.start)) {
    if (r.resumes !== undefined) {
      const target = index.get(`${r.traceId}/${r.resumes}`);
      if (target) target.resumedBy = r.id;
      else delete r.resumes;
    } else if (r.toolCallId !== undefined) {
      const key = `${r.traceId}/${r.toolCallId}/${r.name}`;
      const suspended = waiting.get(key);
      if (suspended && suspended.resumedBy === undefined && suspended.end <= r.start) {
        suspended.resumedBy = r.id;
        r.resumes = suspended.id;
        waiting.delete(key);
      }
    }
    if (r.suspended && r.toolCallId !== undefined && r.resumedBy === undefined) waiting.set(`${r.traceId}/${r.toolCallId}/${r.name}`, r);
  }
}

/** Header totals: spans, errors, tokens (from llm spans), wall time, and the trajectories' steps. */
export function totalsOf(spans: readonly ViewSpan[], traces: readonly ViewTrace[], trajectories: readonly AtifTrajectory[]): ViewTotals {
  let errors = 0;
  let tokens = 0;
  let start = Infinity;
  let end = -Infinity;
  for (const s of spans) {
    if (s.status === "ERROR") errors++;
    if (s.usage) tokens += s.usage.totalTokens ?? (s.usage.promptTokens ?? 0) + (s.usage.completionTokens ?? 0);
  }
  for (const t of traces) {
    start = Math.min(start, t.start);
    end = Math.max(end, t.end);
  }
  let steps = 0;
  let trajectoryCount = 0;
  let trajectoryTokens = 0;
  const pending: AtifTrajectory[] = [...trajectories];
  while (pending.length > 0) {
    const t = pending.pop()!;
    trajectoryCount++;
    steps += Array.isArray(t.steps) ? t.steps.length : 0;
    for (const step of (Array.isArray(t.steps) ? t.steps : []) as AtifStep[]) {
      trajectoryTokens += (step.metrics?.prompt_tokens ?? 0) + (step.metrics?.completion_tokens ?? 0);
    }
    if (Array.isArray(t.subagent_trajectories)) pending.push(...t.subagent_trajectories);
  }
  return {
    spans: spans.filter((s) => s.kind !== "mark").length,
    errors,
    traces: traces.length,
    // Spans and trajectories of the same run count the same tokens: the spans win when present.
    tokens: tokens > 0 ? tokens : trajectoryTokens,
    wallTime: traces.length > 0 ? end - start : 0,
    trajectories: trajectoryCount,
    steps,
  };
}
