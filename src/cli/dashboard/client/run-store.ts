import type { RunsAnswer, RunSummary } from "../model.js";
import { fetchJson } from "./api.js";

/** How often the page asks the server what changed (ms): a new run shows within about a second of being indexed. */
const POLL_MS = 1000;

/**
 * The runs the page knows, kept current: the first answer is the whole list, each later one
 * only what changed since the version the page has (or the whole list again after the server
 * rebuilt its index). Views listen for changes.
 */
export class RunStore {
  readonly runs = new Map<string, RunSummary>();
  info: RunsAnswer | undefined;
  /** The last request failed (the server stopped): shown in the header, retried. */
  offline = false;
  private epoch = 0;
  private version = 0;
  private readonly listeners: ((changed: ReadonlySet<string>) => void)[] = [];

  onChange(listener: (changed: ReadonlySet<string>) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const k = this.listeners.indexOf(listener);
      if (k >= 0) this.listeners.splice(k, 1);
    };
  }

  /** Asks once; resolves when the answer is applied and the listeners have run. */
  async refresh(): Promise<void> {
    let answer: RunsAnswer;
    try {
      answer = await fetchJson<RunsAnswer>("/api/runs?epoch=" + this.epoch + "&since=" + this.version);
      this.offline = false;
    } catch {
      this.offline = true;
      for (const l of this.listeners) l(new Set());
      return;
    }
    const changed = new Set<string>();
    if (answer.full) {
      for (const id of this.runs.keys()) changed.add(id);
      this.runs.clear();
    }
    for (const id of answer.removed) {
      this.runs.delete(id);
      changed.add(id);
    }
    for (const run of answer.runs) {
      this.runs.set(run.id, run);
      changed.add(run.id);
    }
    this.epoch = answer.epoch;
    this.version = answer.version;
    this.info = answer;
    for (const l of this.listeners) l(changed);
  }

  /** Keeps asking, one request at a time. */
  start(): void {
    const loop = () => void this.refresh().finally(() => setTimeout(loop, POLL_MS));
    loop();
  }
}
