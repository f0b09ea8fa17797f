import type { Json } from "../../events/json.js";
import type { AtifTrajectory } from "../../../exporters/atif/types.js";
import type { RunChange } from "../../diff/changes.js";
import type { RunStep } from "../../diff/steps.js";

/** What the viewer page is given: everything it shows, already resolved (the page only lays it out). */

export type ViewStatus = "OK" | "ERROR" | "UNSET";

/** A point in time on a span: a mark, or a pending mark its producer emitted after the span closed. */
export interface ViewMark {
  /** The OTel span id the mark's uuid maps to (as the exporter derives it). */
  id: string;
  name: string;
  /** Epoch microseconds. */
  time: number;
  /** Emitted after its parent span ended (an intercept's pending mark) or a suspension request. */
  pending: boolean;
  category: string | null;
  data: Json;
  metadata: Json;
}

/** One message of an LLM conversation, in any provider dialect, reduced to what a reader needs. */
export interface ViewMessage {
  role: string;
  text: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** Set on a tool result: the call it answers. */
  toolCallId?: string;
}

/** A score or label recorded for a span (`runtime.recordEvaluation`): what the evaluation mark's data says. */
export interface ViewEvaluation {
  name: string;
  score?: number;
  label?: string;
  explanation?: string;
}

export interface ViewUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

export interface ViewError {
  message?: string;
  errorType?: string;
  exceptionType?: string;
}

export interface ViewSpan {
  /** The OTel span id (16 hex digits), the value of `data-span-id`. */
  id: string;
  traceId: string;
  /** Span id of the parent when that parent is in the view; null for a trace root. */
  parentId: string | null;
  name: string;
  /** The category: agent, llm, tool, function, …; `mark` for a mark whose parent is not in the input. */
  kind: string;
  status: ViewStatus;
  /** Epoch microseconds. */
  start: number;
  end: number;
  /** True when no end was recorded: the span is drawn up to the last event of the input. */
  unended?: boolean;
  /** The scope's handle attributes (e.g. `remote`). */
  flags: string[];
  input: Json;
  output: Json;
  toolCallId?: string;
  annotation?: Json;
  error?: ViewError;
  model?: string;
  usage?: ViewUsage;
  messages?: ViewMessage[];
  marks: ViewMark[];
  /** Evaluations of this span (scores, labels), in the order they were recorded. */
  evaluations?: ViewEvaluation[];
  /** Start and end metadata (or OTLP attributes), as recorded. */
  metadata: Json;
  /** The call suspended here (it owns a pending request); a later span may resume it. */
  suspended?: boolean;
  /** The span this one resumes after a suspension (same tool call, same trace). */
  resumes?: string;
  /** The span that resumed this suspended one. */
  resumedBy?: string;
  /** The input file it came from. */
  source: string;
  /** Set on a model call whose step differs between the two runs of `view A --diff B`. */
  diff?: "changed";
}

export interface ViewTrace {
  traceId: string;
  start: number;
  end: number;
  /** Index range of its spans in `ViewDoc.spans` (depth-first order). */
  first: number;
  count: number;
}

export interface ViewTotals {
  spans: number;
  errors: number;
  traces: number;
  tokens: number;
  /** Microseconds from the earliest start to the latest end. */
  wallTime: number;
  trajectories: number;
  steps: number;
}

export interface ViewDoc {
  title: string;
  sources: string[];
  /** Depth-first, children in start order; `depth` and `last` (index of the last descendant) per row. */
  spans: (ViewSpan & { depth: number; last: number })[];
  traces: ViewTrace[];
  trajectories: AtifTrajectory[];
  totals: ViewTotals;
  /** Things skipped or repaired while reading (shown in the header). */
  notes: string[];
  /** `view A --diff B`: both runs step by step, with their changes. */
  diff?: ViewRunDiff;
}

/** The step-by-step comparison of two ATOF files (run-diff.ts), for the viewer's diff pane. */
export interface ViewRunDiff {
  a: string;
  b: string;
  equal: boolean;
  changeCount: number;
  steps: { step: number; a: RunStep | null; b: RunStep | null; changes: RunChange[] }[];
}
