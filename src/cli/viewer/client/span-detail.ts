import { formatDuration } from "../client-logic.js";
import type { El } from "./browser.js";
import { h, pre, section } from "./dom.js";
import { evaluationsList, evaluationsOf } from "./evaluations.js";
import type { ViewerState } from "./state.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Fills a detail panel with a span: facts, error, evaluations, suspension story, conversation, data, marks, metadata. */
export class SpanDetail {
  constructor(
    private readonly state: ViewerState,
    private readonly onSelect: (i: number) => void,
  ) {}

  /** The parts of span `i`'s detail, in reading order. */
  parts(i: number): El[] {
    const r = this.state.rows[i];
    const parent = this.state.parents[i]!;
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
      facts(r),
      parent >= 0 ? this.spanLink(parent, "parent: ") : null,
      r.error ? errorSection(r.error) : null,
      evaluationsOf(r.evaluations).length > 0
        ? section("Evaluations (" + evaluationsOf(r.evaluations).length + ")", evaluationsList(r.evaluations))
        : null,
      r.suspended || r.resumes ? this.suspension(r) : null,
      r.annotation !== undefined ? section("Annotation", pre(r.annotation)) : null,
      r.messages && r.messages.length > 0 ? section("Conversation", messagesView(r.messages)) : null,
      r.input !== null && r.input !== undefined ? section(r.kind === "mark" ? "Data" : "Input", pre(r.input)) : null,
      r.output !== null && r.output !== undefined ? section(r.kind === "mark" ? "Data" : "Output", pre(r.output)) : null,
      r.marks.length > 0 ? marksSection(r) : null,
      r.metadata !== null && r.metadata !== undefined ? section("Attributes and metadata", pre(r.metadata)) : null,
    ];
    return parts.filter((p) => p !== null);
  }

  private spanLink(i: number, prefix: string): El {
    const row = this.state.rows[i];
    const a = h("button", { type: "button", class: "link", "data-goto": row.id }, row.name + " (" + row.id + ")");
    a.addEventListener("click", () => this.onSelect(i));
    return h("p", null, prefix, a);
  }

  private suspension(r: any): El {
    const { rows, rowOf } = this.state;
    const story = section("Suspension");
    if (r.suspended) story.append(h("p", null, "This call suspended: it handed a request to the host and ended."));
    const by = r.resumedBy ? rowOf.get(r.traceId + "/" + r.resumedBy) : undefined;
    if (by !== undefined) story.append(this.spanLink(by, "resumed after " + formatDuration(rows[by].start - r.end) + " by: "));
    const of = r.resumes ? rowOf.get(r.traceId + "/" + r.resumes) : undefined;
    if (of !== undefined)
      story.append(this.spanLink(of, "resumes, " + formatDuration(r.start - rows[of].end) + " after the suspension of: "));
    return story;
  }
}

function facts(r: any): El {
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
  const u = r.usage;
  if (u) fact("tokens", (u.promptTokens ?? "?") + " prompt + " + (u.completionTokens ?? "?") + " completion = " + (u.totalTokens ?? "?"));
  if (r.flags.length > 0) fact("flags", r.flags.join(", "));
  fact("file", r.source);
  return dl;
}

function errorSection(e: any): El {
  const text = [e.message, e.errorType ? "error.type " + e.errorType : "", e.exceptionType ? "exception " + e.exceptionType : ""];
  return section("Error", h("p", { class: "error", "data-testid": "span-error" }, text.filter(Boolean).join(" · ") || "ERROR"));
}

function marksSection(r: any): El {
  const list = h("ul", { class: "marks" });
  for (const m of r.marks) {
    const when =
      " " + (m.pending ? "(pending mark) " : "") + "+" + formatDuration(m.time - r.start) + (m.category ? " · " + m.category : "");
    list.append(
      h("li", { "data-mark": m.name }, h("strong", null, m.name), when, m.data !== null && m.data !== undefined ? pre(m.data) : null),
    );
  }
  return section("Marks (" + r.marks.length + ")", list);
}

/** An LLM call's conversation, one item per message with its tool calls. */
export function messagesView(messages: any[]): El {
  const list = h("ol", { class: "messages" });
  for (const m of messages) {
    const role = h("div", { class: "role" }, m.role + (m.toolCallId ? " · result of " + m.toolCallId : ""));
    const item = h("li", { class: "message", "data-role": m.role }, role);
    if (m.text) item.append(h("div", { class: "text" }, m.text));
    for (const c of m.toolCalls ?? []) {
      const name = h("span", { class: "call-name" }, "→ " + c.name + (c.id ? " (" + c.id + ")" : ""));
      item.append(h("div", { class: "tool-call" }, name, pre(c.arguments)));
    }
    list.append(item);
  }
  return list;
}
