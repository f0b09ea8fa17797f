export { diffRuns, diffRunStreams } from "./diff-runs.js";
export type { RunDiff, RunTotals } from "./diff-runs.js";
export type { RunChange, RunChangeKind, StepCall } from "./changes.js";
