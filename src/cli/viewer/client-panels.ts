import type { ClientLogic } from "./client-logic.js";
import type { ViewerDom } from "./client-dom.js";
import type { ViewerState, Waterfall } from "./client-state.js";

// Runs in the browser: the page embeds this function's source text (see page.ts).
/* eslint-disable @typescript-eslint/no-explicit-any */
type El = any;

export interface ViewerPanels {
  /** Fills the detail panel with span `i`. */
  showDetail(i: number): void;
  /** The trajectories pane, built once. */
  trajectoriesPane: El;
}

/**
 * The panels beside and instead of the waterfall: a span's detail (facts, error, suspension
 * story, conversation, input/output, marks, metadata) and the ATIF trajectories, sub-agents
 * nested. Links to other spans call `onSelect`.
 */
export function viewerPanels(
  logic: ClientLogic,
  dom: ViewerDom,
  state: ViewerState,
  waterfall: Waterfall,
  onSelect: (i: number) => void,
): ViewerPanels {
  const { formatDuration } = logic;
  const { h, json, pre, section } = dom;
  const { doc, rows, parents, rowOf } = state;
  const detail = waterfall.detail;

  function spanLink(i: number | undefined, prefix: string): El {
    if (i === undefined) return null;
    const a = h("button", { type: "button", class: "link", "data-goto": rows[i].id }, rows[i].name + " (" + rows[i].id + ")");
    a.addEventListener("click", () => onSelect(i));
    return h("p", null, prefix, a);
  }

  function messagesView(messages: any[]): El {
    const list = h("ol", { class: "messages" });
    for (const m of messages) {
      const item = h(
        "li",
        { class: "message", "data-role": m.role },
        h("div", { class: "role" }, m.role + (m.toolCallId ? " · result of " + m.toolCallId : "")),
      );
      if (m.text) item.append(h("div", { class: "text" }, m.text));
      for (const c of m.toolCalls ?? [])
        item.append(
          h(
            "div",
            { class: "tool-call" },
            h("span", { class: "call-name" }, "→ " + c.name + (c.id ? " (" + c.id + ")" : "")),
            pre(c.arguments),
          ),
        );
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
    if (r.usage)
      fact(
        "tokens",
        (r.usage.promptTokens ?? "?") + " prompt + " + (r.usage.completionTokens ?? "?") + " completion = " + (r.usage.totalTokens ?? "?"),
      );
    if (r.flags.length > 0) fact("flags", r.flags.join(", "));
    fact("file", r.source);
    const parts: El[] = [
      h(
        "h2",
        null,
        h("span", { class: "kind", "data-kind": r.kind }, r.kind),
        " ",
        r.name,
        " ",
        h("span", { class: "status", "data-status": r.status }, r.status),
      ),
      dl,
    ];
    const parentLink = spanLink(parents[i]! >= 0 ? parents[i] : undefined, "parent: ");
    if (parentLink) parts.push(parentLink);
    if (r.error) {
      const e = r.error;
      parts.push(
        section(
          "Error",
          h(
            "p",
            { class: "error", "data-testid": "span-error" },
            [e.message, e.errorType ? "error.type " + e.errorType : "", e.exceptionType ? "exception " + e.exceptionType : ""]
              .filter(Boolean)
              .join(" · ") || "ERROR",
          ),
        ),
      );
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
    waterfall.draw();
  }

  // ---- trajectories -----------------------------------------------------------------------
  const trajPane = h("div", { class: "pane traj-pane", "data-pane": "trajectories" });
  function messageText(message: any): string {
    if (typeof message === "string") return message;
    if (!Array.isArray(message)) return message === undefined || message === null ? "" : json(message);
    return message
      .map((p: any) => (p && p.type === "text" ? p.text : p && p.type === "image" ? "[image " + (p.source?.path ?? "") + "]" : ""))
      .join("\n");
  }
  /** The metrics present in `m`, each as its label writes it, joined by " · ". */
  function metricsLine(m: any, labels: [string, (v: unknown) => string][]): string {
    if (!m) return "";
    return labels
      .filter(([key]) => m[key] !== undefined)
      .map(([key, label]) => label(m[key]))
      .join(" · ");
  }
  const metricsText = (m: any): string =>
    metricsLine(m, [
      ["prompt_tokens", (v) => v + " prompt"],
      ["completion_tokens", (v) => v + " completion"],
      ["cached_tokens", (v) => v + " cached"],
      ["cost_usd", (v) => "$" + v],
    ]);
  const finalMetricsText = (m: any): string =>
    metricsLine(m, [
      ["total_prompt_tokens", (v) => v + " prompt tokens"],
      ["total_completion_tokens", (v) => v + " completion tokens"],
      ["total_cached_tokens", (v) => v + " cached"],
      ["total_cost_usd", (v) => "$" + v],
      ["total_steps", (v) => v + " steps"],
    ]);
  function stepView(step: any): El {
    const el = h(
      "li",
      { class: "step", "data-step-id": step.step_id, "data-source": step.source },
      h(
        "div",
        { class: "step-head" },
        h("span", { class: "step-no" }, "#" + step.step_id),
        h("span", { class: "source", "data-source": step.source }, step.source),
        step.model_name ? h("span", { class: "model" }, step.model_name) : null,
        step.timestamp ? h("span", { class: "time" }, step.timestamp) : null,
      ),
    );
    const text = messageText(step.message);
    if (text) el.append(h("div", { class: "text" }, text));
    if (step.reasoning_content)
      el.append(h("details", null, h("summary", null, "reasoning"), h("div", { class: "text" }, step.reasoning_content)));
    const results: any[] = step.observation?.results ?? [];
    for (const call of step.tool_calls ?? []) {
      const result = results.find((r: any) => r.source_call_id === call.tool_call_id);
      el.append(
        h(
          "div",
          { class: "tool-call", "data-tool-call-id": call.tool_call_id },
          h("span", { class: "call-name" }, "→ " + call.function_name + " (" + call.tool_call_id + ")"),
          pre(call.arguments),
          result
            ? h("div", { class: "observation" }, h("span", { class: "role" }, "observation"), pre(messageText(result.content)))
            : h("div", { class: "observation missing" }, "no observation"),
        ),
      );
    }
    for (const r of results) {
      if (
        r.source_call_id !== undefined &&
        (step.tool_calls ?? []).some((c: any) => c.tool_call_id === r.source_call_id) &&
        !r.subagent_trajectory_ref
      )
        continue;
      const refs = (r.subagent_trajectory_ref ?? []).map((ref: any) => ref.trajectory_id ?? ref.trajectory_path ?? "").join(", ");
      el.append(
        h(
          "div",
          { class: "observation" },
          h("span", { class: "role" }, refs ? "sub-agent " + refs : "observation"),
          r.content !== undefined && r.content !== null ? pre(messageText(r.content)) : null,
        ),
      );
    }
    const metrics = metricsText(step.metrics);
    if (metrics) el.append(h("div", { class: "metrics" }, metrics));
    const marks = step.extra?.marks;
    if (Array.isArray(marks) && marks.length > 0)
      el.append(h("div", { class: "metrics" }, "marks: " + marks.map((m: any) => m?.name ?? "mark").join(", ")));
    return el;
  }
  // Sub-agents nest as <details>, built from a work list (no recursion on the input's depth).
  const work: { traj: any; into: El; nested: boolean }[] = doc.trajectories
    .map((traj: any) => ({ traj, into: trajPane, nested: false }))
    .reverse();
  while (work.length > 0) {
    const { traj, into, nested } = work.pop()!;
    const agent = traj.agent ?? {};
    const article = h("article", { class: "trajectory", "data-trajectory-id": traj.trajectory_id ?? "" });
    const head = h(
      "div",
      { class: "traj-head" },
      h("strong", null, (agent.name ?? "agent") + " " + (agent.version ?? "")),
      agent.model_name ? " · " + agent.model_name : "",
      " · " + (traj.schema_version ?? "") + " · trajectory " + (traj.trajectory_id ?? "(no id)"),
    );
    const steps = h("ol", { class: "steps" });
    for (const step of Array.isArray(traj.steps) ? traj.steps : []) steps.append(stepView(step));
    const final = finalMetricsText(traj.final_metrics);
    article.append(head, steps);
    if (final) article.append(h("div", { class: "metrics final" }, "final: " + final));
    if (traj.notes) article.append(h("p", { class: "hint" }, traj.notes));
    if (nested)
      into.append(
        h(
          "details",
          { class: "subagent" },
          h("summary", null, "sub-agent " + (agent.name ?? "") + " (" + (traj.steps?.length ?? 0) + " steps)"),
          article,
        ),
      );
    else into.append(article);
    const subs: any[] = Array.isArray(traj.subagent_trajectories) ? traj.subagent_trajectories : [];
    for (let s = subs.length - 1; s >= 0; s--) work.push({ traj: subs[s], into: article, nested: true });
  }
  if (doc.trajectories.length === 0) trajPane.append(h("p", { class: "hint" }, "No ATIF trajectory in the input."));

  return { showDetail, trajectoriesPane: trajPane };
}
