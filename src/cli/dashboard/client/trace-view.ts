import { browserDocument as document, browserWindow as window } from "../../viewer/client/browser.js";
import { h } from "../../viewer/client/dom.js";
import { bindKeys } from "../../viewer/client/keys.js";
import { SpanDetail } from "../../viewer/client/span-detail.js";
import { viewerState, type ViewerState } from "../../viewer/client/state.js";
import { SpansWaterfall } from "../../viewer/client/waterfall.js";
import type { TraceAnswer } from "../model.js";
import { fetchJson } from "./api.js";
import { routeHash } from "./routes.js";
import { runFacts } from "./run-cells.js";
import type { RunStore } from "./run-store.js";

/**
 * One run: its facts (session, user, tags, status, tokens, cost, evaluations), then the viewer's
 * waterfall and span detail over its spans, read back from the files. The selected span is in
 * the URL; a run that changes while shown offers to load again.
 */
export class TraceView {
  readonly el = h("div", { class: "pane trace-view", "data-view": "trace" });
  private state: ViewerState | undefined;
  private readonly stop: () => void;
  private unbindKeys: () => void = () => undefined;
  private shownVersion = -1;
  private readonly stale = h("button", { type: "button", class: "link", hidden: true }, "this run has new events: load them");

  constructor(
    private readonly store: RunStore,
    private readonly id: string,
    private span: string | undefined,
  ) {
    this.el.setAttribute("data-trace-id", id);
    this.el.append(h("p", { class: "hint" }, "Loading the run…"));
    this.stale.addEventListener("click", () => void this.load());
    this.stop = store.onChange((changed) => {
      const run = store.runs.get(id);
      if (changed.has(id) && run && run.version !== this.shownVersion && this.state) this.stale.hidden = false;
    });
    void this.load();
  }

  private async load(): Promise<void> {
    let answer: TraceAnswer;
    try {
      answer = await fetchJson<TraceAnswer>("/api/trace/" + this.id);
    } catch (error) {
      this.el.replaceChildren(h("p", { class: "error" }, "Cannot show this run: " + (error as Error).message));
      return;
    }
    this.unbindKeys();
    this.shownVersion = answer.run.version;
    this.stale.hidden = true;
    this.render(answer);
  }

  private render(answer: TraceAnswer): void {
    const { run, doc } = answer;
    const state = (this.state = viewerState(doc));
    const select = (i: number): void => {
      if (i < 0 || i >= state.rows.length) return;
      state.selected = i;
      waterfall.reveal(i);
      waterfall.detail.replaceChildren(...detail.parts(i));
      waterfall.detail.setAttribute("data-selected", state.rows[i].id);
      waterfall.draw();
      this.span = state.rows[i].id;
      window.history.replaceState(null, "", routeHash({ view: "trace", id: this.id, span: this.span }));
    };
    const waterfall = new SpansWaterfall(state, select);
    const detail = new SpanDetail(state, select);
    const files = h("p", { class: "hint run-files" }, "files: ");
    run.files.forEach((f, k) => files.append(k > 0 ? ", " : "", h("a", { href: "/files/" + encodeURIComponent(f), download: f }, f)));
    const head = h(
      "div",
      { class: "view-head" },
      h("h2", null, h("span", { class: "hint" }, "run "), run.name),
      runFacts(run),
      files,
      this.stale,
    );
    const notes = doc.notes.length > 0 ? h("ul", { class: "notes" }, ...doc.notes.map((n: string) => h("li", null, n))) : null;
    this.el.replaceChildren(head, ...(notes ? [notes] : []), waterfall.pane);
    this.unbindKeys = bindKeys(document, state, waterfall, select, () => undefined);
    waterfall.refresh();
    const wanted = this.span !== undefined ? state.rows.findIndex((r: { id: string }) => r.id === this.span) : -1;
    if (wanted >= 0) select(wanted);
    this.el.setAttribute("data-loaded", "true");
  }

  dispose(): void {
    this.stop();
    this.unbindKeys();
  }
}
