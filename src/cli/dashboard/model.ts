import type { ViewDoc, ViewRunDiff } from "../viewer/model.js";

/** What the dashboard's server sends its page: the shapes of its JSON answers. */

/**
 * How a run ended: `ok`, `error` (its root ended with an error status), `suspended` (it handed a
 * request to its host and no answer or resumption is recorded after it) or `running` (its root has
 * no end yet: still running, or its process stopped before writing one).
 */
export type RunStatus = "ok" | "error" | "suspended" | "running";

/** A score or label recorded for a span of the run. */
export interface RunEvaluation {
  name: string;
  score?: number;
  label?: string;
}

/** One row of the runs list: one trace, summed up while its lines were read. */
export interface RunSummary {
  /** The trace id (32 hex digits, as the OTel exporter derives it from the root's uuid). */
  id: string;
  /** The root span's id (16 hex digits). */
  rootSpanId: string;
  name: string;
  /** The root's category (agent, function, …). */
  kind: string;
  /** Epoch microseconds of the root's start (of the first event read, when the start is not in the files). */
  start: number;
  /** Epoch microseconds of the root's end; null while there is none. */
  end: number | null;
  status: RunStatus;
  sessionId?: string;
  userId?: string;
  tags: string[];
  spans: number;
  llmCalls: number;
  toolCalls: number;
  /** Spans that ended with an error status. */
  errors: number;
  tokens: number;
  /** Summed `category_profile.cost.total` of the model calls that record one (USD). */
  costUsd?: number;
  models: string[];
  evaluations: RunEvaluation[];
  /** The start of the root's input and output as text (a few hundred characters). */
  input?: string;
  output?: string;
  /** The files its lines are in. */
  files: string[];
  /** The index's version when this summary last changed. */
  version: number;
}

/** A file of the directory as the index read it. */
export interface IndexedFile {
  name: string;
  bytes: number;
  lines: number;
  badLines: number;
  /** Gone from the directory since it was read: its runs stay listed, their lines cannot be read back. */
  deleted?: boolean;
}

/** `GET /api/runs?epoch=E&since=V`: every run changed after version V (all of them when E is not the current epoch). */
export interface RunsAnswer {
  dir: string;
  /** The first pass over the directory is complete. */
  ready: boolean;
  /** Changes when the index is rebuilt (a file shrank or was replaced): the page then starts over. */
  epoch: number;
  version: number;
  /** True when `runs` is the whole list, not the changes since `since`. */
  full: boolean;
  runs: RunSummary[];
  /** Runs that became part of another (a parent read after its children): their ids. */
  removed: string[];
  files: IndexedFile[];
  /** Corrupt lines, counted: the first few named by file and line, the rest counted. */
  badLines: number;
  problems: string[];
  /** Marks that belong to no run (their parent scope is not in the files). */
  looseMarks: number;
}

/** `GET /api/trace/ID`: one run as the viewer's document, with its summary. */
export interface TraceAnswer {
  run: RunSummary;
  doc: ViewDoc;
}

/** `GET /api/compare?a=ID&b=ID`: two runs and the step-by-step diff `relaytrace diff` computes. */
export interface CompareAnswer {
  a: RunSummary;
  b: RunSummary;
  diff: ViewRunDiff;
}
