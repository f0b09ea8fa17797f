import type { ClientLogic, RowFilter } from "./client-logic.js";

// This function runs in the browser: the page embeds its source text. The project compiles for
// Node without the DOM library, so the few browser globals it touches are declared loosely here.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;
type El = any;

/**
 * The viewer page: reads the embedded document, draws the header, the virtualized waterfall,
 * the span detail panel and the ATIF trajectories. Every piece of data reaches the page through
 * `textContent` or an attribute value, never as markup.
 */
export function viewerMain(logic: ClientLogic): void {
  // Taken from the argument, not imported: the page runs this function's text on its own.
  const { axisTicks, barPlacement, formatDuration, parentIndexes, rowMatches, searchText, visibleRows } = logic;
  const ROW = 26;
  const OVERSCAN = 12;
  const doc = JSON.parse(document.getElementById("relaytrace-data").textContent);
  const rows: any[] = doc.spans;
  const traces: any[] = doc.traces;
  const parents = parentIndexes(rows);
  const rowOf = new Map<string, number>();
  rows.forEach((r: any, i: number) => rowOf.set(r.traceId + "/" + r.id, i));
  const collapsed = new Set<number>();
  let filter: RowFilter = { text: "", everywhere: false, status: "", kind: "" };
  let matches: Uint8Array | null = null;
  let visible: number[] = [];
  let selected = -1;
  const textCache: (string | undefined)[] = [];
  const textCacheDeep: (string | undefined)[] = [];

  function h(tag: string, attrs?: Record<string, string | number | boolean | undefined> | null, ...children: unknown[]): El {
    const el = document.createElement(tag);
    if (attrs) {
      for (const key of Object.keys(attrs)) {
        const v = attrs[key];
        if (v === undefined || v === false) continue;
        if (key === "class") el.className = String(v);
        else el.setAttribute(key, v === true ? "" : String(v));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      el.append(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return el;
  }
  function json(value: unknown): string {
    if (typeof value === "string") return value;
    try {
      return JSON.stringify(value, null, 2) ?? "";
    } catch {
      return String(value);
    }
  }
  function pre(value: unknown): El {
    const text = json(value);
    const LIMIT = 200_000;
    const el = h("pre", { class: "json" }, text.length > LIMIT ? text.slice(0, LIMIT) : text);
    if (text.length <= LIMIT) return el;
    const more = h("button", { type: "button", class: "link" }, "show all " + text.length.toLocaleString() + " characters");
    more.addEventListener("click", () => {
      el.textContent = text;
      more.remove();
    });
    return h("div", null, el, more);
  }
  function section(title: string, ...body: unknown[]): El {
    return h("section", { class: "block" }, h("h3", null, title), ...body);
  }
  function shortId(id: string): string {
    return id.length > 12 ? id.slice(0, 8) + "…" : id;
  }

  // ---- header -----------------------------------------------------------------------------
  const root = document.getElementById("relaytrace-viewer");
  const t = doc.totals;
  const stat = (label: string, value: string, key: string) => h("div", { class: "stat", "data-total": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
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

  // ---- waterfall --------------------------------------------------------------------------
  const spansPane = h("div", { class: "pane spans-pane", "data-pane": "spans" });
  const search = h("input", { type: "search", placeholder: "Search names (press /)", "aria-label": "search", "data-testid": "search" });
  const everywhere = h("input", { type: "checkbox", "data-testid": "search-everywhere" });
  const statusSelect = h("select", { "aria-label": "status", "data-testid": "status-filter" }, h("option", { value: "" }, "any status"), ...["OK", "ERROR", "UNSET"].map((s) => h("option", { value: s }, s)));
  const kinds = Array.from(new Set(rows.map((r: any) => r.kind))).sort() as string[];
  const kindSelect = h("select", { "aria-label": "kind", "data-testid": "kind-filter" }, h("option", { value: "" }, "any kind"), ...kinds.map((k) => h("option", { value: k }, k)));
  const shown = h("span", { class: "shown", "data-testid": "shown-count" });
  const toolbar = h("div", { class: "toolbar" }, search, h("label", null, everywhere, " in data too"), statusSelect, kindSelect, shown);
  const scroller = h("div", { class: "scroller", tabindex: "0", role: "tree", "aria-label": "spans" });
  const spacer = h("div", { class: "spacer" });
  const layer = h("div", { class: "layer" });
  spacer.append(layer);
  scroller.append(spacer);
  const detail = h("aside", { class: "detail", "data-testid": "span-detail", "aria-live": "polite" }, h("p", { class: "hint" }, "Select a span (click, or ↑ ↓ and ← → to fold)."));
  const split = h("div", { class: "split" }, h("div", { class: "waterfall" }, scroller), detail);
  spansPane.append(toolbar, split);
  root.append(spansPane);
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
      h("div", { class: "cell name" }, h("strong", null, "trace " + shortId(tr.traceId)), " · " + tr.count.toLocaleString() + " spans · " + formatDuration(duration)),
      axis,
    );
    el.style.top = top + "px";
    return el;
  }

  function spanRow(i: number, top: number): El {
    const r = rows[i];
    const tr = traces[traceIndexOf(i)];
    const hasKids = r.last > i;
    const toggle = h("span", { class: "toggle", "aria-hidden": "true" }, hasKids ? (collapsed.has(i) && !matches ? "▸" : "▾") : "");
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
      const dot = h("span", { class: m.pending ? "mark pending" : "mark", title: (m.pending ? "pending mark " : "mark ") + m.name, "data-mark": m.name });
      dot.style.left = mp.left + "%";
      timeline.append(dot);
    }
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
    visible = visibleRows(rows, traces, collapsed, matches, parents);
    spacer.style.height = visible.length * ROW + "px";
    const count = visible.filter((v) => v >= 0).length;
    shown.textContent = matches ? count.toLocaleString() + " of " + rows.length.toLocaleString() + " spans" : rows.length.toLocaleString() + " spans";
    draw();
  }

  function applyFilter(): void {
    filter = { text: search.value.trim().toLowerCase(), everywhere: everywhere.checked, status: statusSelect.value, kind: kindSelect.value };
    if (filter.text === "" && filter.status === "" && filter.kind === "") {
      matches = null;
    } else {
      const cache = filter.everywhere ? textCacheDeep : textCache;
      matches = new Uint8Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        let text = cache[i];
        if (text === undefined && filter.text !== "") text = cache[i] = searchText(rows[i], filter.everywhere);
        matches[i] = rowMatches(rows[i], text ?? "", filter) ? 1 : 0;
      }
    }
    refresh();
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
    let k = visible.indexOf(i);
    if (k < 0 && matches) {
      search.value = "";
      statusSelect.value = "";
      kindSelect.value = "";
      applyFilter();
      k = visible.indexOf(i);
    }
    if (k < 0) return;
    const top = k * ROW;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW - scroller.clientHeight;
    draw();
  }

  function select(i: number): void {
    if (i < 0 || i >= rows.length) return;
    selected = i;
    reveal(i);
    showDetail(i);
  }

  function spanLink(i: number | undefined, prefix: string): El {
    if (i === undefined) return null;
    const a = h("button", { type: "button", class: "link", "data-goto": rows[i].id }, rows[i].name + " (" + rows[i].id + ")");
    a.addEventListener("click", () => select(i));
    return h("p", null, prefix, a);
  }

  function messagesView(messages: any[]): El {
    const list = h("ol", { class: "messages" });
    for (const m of messages) {
      const item = h("li", { class: "message", "data-role": m.role }, h("div", { class: "role" }, m.role + (m.toolCallId ? " · result of " + m.toolCallId : "")));
      if (m.text) item.append(h("div", { class: "text" }, m.text));
      for (const c of m.toolCalls ?? []) item.append(h("div", { class: "tool-call" }, h("span", { class: "call-name" }, "→ " + c.name + (c.id ? " (" + c.id + ")" : "")), pre(c.arguments)));
      list.append(item);
    }
    return list;
  }

  function showDetail(i: number): void {
    const r = rows[i];
    const dl = h("dl", { class: "facts" });
    const fact = (k: string, v: unknown) => {
      if (v === undefined || v === null || v === "") return;
      dl.append(h("dt", null, k), h("dd", null, String(v)));
    };
    fact("kind", r.kind);
    fact("status", r.status);
    fact("duration", formatDuration(r.end - r.start) + (r.unended ? " (no end recorded)" : ""));
    fact("start", new Date(r.start / 1000).toISOString());
    fact("span id", r.id);
    fact("trace id", r.traceId);
    fact("tool call id", r.toolCallId);
    fact("model", r.model);
    if (r.usage) fact("tokens", (r.usage.promptTokens ?? "?") + " prompt + " + (r.usage.completionTokens ?? "?") + " completion = " + (r.usage.totalTokens ?? "?"));
    if (r.flags.length > 0) fact("flags", r.flags.join(", "));
    fact("file", r.source);
    const parts: El[] = [h("h2", null, h("span", { class: "kind", "data-kind": r.kind }, r.kind), " ", r.name, " ", h("span", { class: "status", "data-status": r.status }, r.status)), dl];
    const parentLink = spanLink(parents[i]! >= 0 ? parents[i] : undefined, "parent: ");
    if (parentLink) parts.push(parentLink);
    if (r.error) {
      const e = r.error;
      parts.push(section("Error", h("p", { class: "error", "data-testid": "span-error" }, [e.message, e.errorType ? "error.type " + e.errorType : "", e.exceptionType ? "exception " + e.exceptionType : ""].filter(Boolean).join(" · ") || "ERROR")));
    }
    if (r.suspended || r.resumes) {
      const story = section("Suspension");
      if (r.suspended) story.append(h("p", null, "This call suspended: it handed a request to the host and ended."));
      const by = r.resumedBy ? rowOf.get(r.traceId + "/" + r.resumedBy) : undefined;
      if (by !== undefined) story.append(spanLink(by, "resumed after " + formatDuration(rows[by].start - r.end) + " by: "));
      const of = r.resumes ? rowOf.get(r.traceId + "/" + r.resumes) : undefined;
      if (of !== undefined) story.append(spanLink(of, "resumes, " + formatDuration(r.start - rows[of].end) + " after the suspension of: "));
      parts.push(story);
    }
    if (r.annotation !== undefined) parts.push(section("Annotation", pre(r.annotation)));
    if (r.messages && r.messages.length > 0) parts.push(section("Conversation", messagesView(r.messages)));
    if (r.input !== null && r.input !== undefined) parts.push(section(r.kind === "mark" ? "Data" : "Input", pre(r.input)));
    if (r.output !== null && r.output !== undefined) parts.push(section(r.kind === "mark" ? "Data" : "Output", pre(r.output)));
    if (r.marks.length > 0) {
      const list = h("ul", { class: "marks" });
      for (const m of r.marks) {
        list.append(
          h(
            "li",
            { "data-mark": m.name },
            h("strong", null, m.name),
            " " + (m.pending ? "(pending mark) " : "") + "+" + formatDuration(m.time - r.start) + (m.category ? " · " + m.category : ""),
            m.data !== null && m.data !== undefined ? pre(m.data) : null,
          ),
        );
      }
      parts.push(section("Marks (" + r.marks.length + ")", list));
    }
    if (r.metadata !== null && r.metadata !== undefined) parts.push(section("Attributes and metadata", pre(r.metadata)));
    detail.replaceChildren(...parts);
    detail.setAttribute("data-selected", r.id);
    draw();
  }

  layer.addEventListener("click", (event: any) => {
    const rowEl = event.target.closest("[data-row]");
    if (!rowEl) return;
    const i = Number(rowEl.getAttribute("data-row"));
    if (event.target.closest(".toggle") && rows[i].last > i && !matches) {
      if (collapsed.has(i)) collapsed.delete(i);
      else collapsed.add(i);
      refresh();
    }
    select(i);
    scroller.focus({ preventScroll: true });
  });

  function move(delta: number): void {
    const list = visible.filter((v) => v >= 0);
    if (list.length === 0) return;
    const k = list.indexOf(selected);
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
      applyFilter();
      scroller.focus();
      return;
    }
    if (typing || currentPane !== "spans") return;
    const page = Math.max(1, Math.floor((scroller.clientHeight || 600) / ROW) - 1);
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
        if (rows[selected].last > selected && !collapsed.has(selected) && !matches) {
          collapsed.add(selected);
          refresh();
        } else if (parents[selected]! >= 0) select(parents[selected]!);
      },
      ArrowRight: () => {
        if (selected < 0) return;
        if (collapsed.has(selected)) {
          collapsed.delete(selected);
          refresh();
        } else if (rows[selected].last > selected) select(selected + 1);
      },
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // ---- trajectories -----------------------------------------------------------------------
  const trajPane = h("div", { class: "pane traj-pane", "data-pane": "trajectories" });
  function messageText(message: any): string {
    if (typeof message === "string") return message;
    if (!Array.isArray(message)) return message === undefined || message === null ? "" : json(message);
    return message.map((p: any) => (p && p.type === "text" ? p.text : p && p.type === "image" ? "[image " + (p.source?.path ?? "") + "]" : "")).join("\n");
  }
  function metricsText(m: any): string {
    if (!m) return "";
    const bits: string[] = [];
    if (m.prompt_tokens !== undefined) bits.push(m.prompt_tokens + " prompt");
    if (m.completion_tokens !== undefined) bits.push(m.completion_tokens + " completion");
    if (m.cached_tokens !== undefined) bits.push(m.cached_tokens + " cached");
    if (m.cost_usd !== undefined) bits.push("$" + m.cost_usd);
    return bits.join(" · ");
  }
  function finalMetricsText(m: any): string {
    if (!m) return "";
    const bits: string[] = [];
    if (m.total_prompt_tokens !== undefined) bits.push(m.total_prompt_tokens + " prompt tokens");
    if (m.total_completion_tokens !== undefined) bits.push(m.total_completion_tokens + " completion tokens");
    if (m.total_cached_tokens !== undefined) bits.push(m.total_cached_tokens + " cached");
    if (m.total_cost_usd !== undefined) bits.push("$" + m.total_cost_usd);
    if (m.total_steps !== undefined) bits.push(m.total_steps + " steps");
    return bits.join(" · ");
  }
  function stepView(step: any): El {
    const el = h(
      "li",
      { class: "step", "data-step-id": step.step_id, "data-source": step.source },
      h("div", { class: "step-head" }, h("span", { class: "step-no" }, "#" + step.step_id), h("span", { class: "source", "data-source": step.source }, step.source), step.model_name ? h("span", { class: "model" }, step.model_name) : null, step.timestamp ? h("span", { class: "time" }, step.timestamp) : null),
    );
    const text = messageText(step.message);
    if (text) el.append(h("div", { class: "text" }, text));
    if (step.reasoning_content) el.append(h("details", null, h("summary", null, "reasoning"), h("div", { class: "text" }, step.reasoning_content)));
    const results: any[] = step.observation?.results ?? [];
    for (const call of step.tool_calls ?? []) {
      const result = results.find((r: any) => r.source_call_id === call.tool_call_id);
      el.append(
        h(
          "div",
          { class: "tool-call", "data-tool-call-id": call.tool_call_id },
          h("span", { class: "call-name" }, "→ " + call.function_name + " (" + call.tool_call_id + ")"),
          pre(call.arguments),
          result ? h("div", { class: "observation" }, h("span", { class: "role" }, "observation"), pre(messageText(result.content))) : h("div", { class: "observation missing" }, "no observation"),
        ),
      );
    }
    for (const r of results) {
      if (r.source_call_id !== undefined && (step.tool_calls ?? []).some((c: any) => c.tool_call_id === r.source_call_id) && !r.subagent_trajectory_ref) continue;
      const refs = (r.subagent_trajectory_ref ?? []).map((ref: any) => ref.trajectory_id ?? ref.trajectory_path ?? "").join(", ");
      el.append(h("div", { class: "observation" }, h("span", { class: "role" }, refs ? "sub-agent " + refs : "observation"), r.content !== undefined && r.content !== null ? pre(messageText(r.content)) : null));
    }
    const metrics = metricsText(step.metrics);
    if (metrics) el.append(h("div", { class: "metrics" }, metrics));
    const marks = step.extra?.marks;
    if (Array.isArray(marks) && marks.length > 0) el.append(h("div", { class: "metrics" }, "marks: " + marks.map((m: any) => m?.name ?? "mark").join(", ")));
    return el;
  }
  // Sub-agents nest as <details>, built from a work list (no recursion on the input's depth).
  const work: { traj: any; into: El; nested: boolean }[] = doc.trajectories.map((traj: any) => ({ traj, into: trajPane, nested: false })).reverse();
  while (work.length > 0) {
    const { traj, into, nested } = work.pop()!;
    const agent = traj.agent ?? {};
    const article = h("article", { class: "trajectory", "data-trajectory-id": traj.trajectory_id ?? "" });
    const head = h("div", { class: "traj-head" }, h("strong", null, (agent.name ?? "agent") + " " + (agent.version ?? "")), agent.model_name ? " · " + agent.model_name : "", " · " + (traj.schema_version ?? "") + " · trajectory " + (traj.trajectory_id ?? "(no id)"));
    const steps = h("ol", { class: "steps" });
    for (const step of Array.isArray(traj.steps) ? traj.steps : []) steps.append(stepView(step));
    const final = finalMetricsText(traj.final_metrics);
    article.append(head, steps);
    if (final) article.append(h("div", { class: "metrics final" }, "final: " + final));
    if (traj.notes) article.append(h("p", { class: "hint" }, traj.notes));
    if (nested) into.append(h("details", { class: "subagent" }, h("summary", null, "sub-agent " + (agent.name ?? "") + " (" + (traj.steps?.length ?? 0) + " steps)"), article));
    else into.append(article);
    const subs: any[] = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    for (let s = subs.length - 1; s >= 0; s--) work.push({ traj: subs[s], into: article, nested: true });
  }
  if (doc.trajectories.length === 0) trajPane.append(h("p", { class: "hint" }, "No ATIF trajectory in the input."));
  root.append(trajPane);

  let currentPane = "spans";
  function showPane(name: string): void {
    currentPane = name;
    for (const pane of [spansPane, trajPane]) pane.hidden = pane.getAttribute("data-pane") !== name;
    for (const tab of [spansTab, trajTab]) tab.setAttribute("aria-selected", String(tab.getAttribute("data-tab") === name));
    if (name === "spans") draw();
  }
  spansTab.addEventListener("click", () => showPane("spans"));
  trajTab.addEventListener("click", () => showPane("trajectories"));
  showPane(rows.length === 0 && doc.trajectories.length > 0 ? "trajectories" : "spans");
  refresh();
  root.setAttribute("data-ready", "true");
}
