import type { AtofEvent } from "../events/types.js";
import { stepChanges, type RunChange } from "./changes.js";
import { runSteps, streamRunSteps, type RunStep } from "./steps.js";
import { alignStepStreams, alignSteps } from "./align.js";

/** Whether two runs are equivalent, and every change from the first to the second. */
export interface RunDiff {
  equal: boolean;
  changes: RunChange[];
}

/** Totals of one run, for a summary line: what changed in tokens, latency and cost. */
export interface RunTotals {
  steps: number;
  tokens: number;
  latencyMs: number;
  costUsd: number;
}

export function emptyTotals(): RunTotals {
  return { steps: 0, tokens: 0, latencyMs: 0, costUsd: 0 };
}

export function addToTotals(totals: RunTotals, step: RunStep | undefined): void {
  if (step?.model == null) return;
  totals.steps++;
  const u = step.model.usage;
  totals.tokens += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
  totals.latencyMs += (step.model.latencyUs ?? 0) / 1000;
  totals.costUsd += u.costUsd ?? 0;
}

/**
 * Compares two recorded runs step by step (a step is a model call and the tool calls after it),
 * ignoring ids, timestamps and durations: tool calls added, removed or with other arguments,
 * other tool results, other model output, status changes and token changes. Steps are lined up
 * first (see align.ts): a model call only one run made is one change, not a shift of every
 * later step.
 */
export function diffRuns(a: readonly AtofEvent[], b: readonly AtofEvent[]): RunDiff {
  const changes: RunChange[] = [];
  for (const [x, y] of alignSteps(runSteps(a), runSteps(b))) changes.push(...stepChanges(x, y));
  return { equal: changes.length === 0, changes };
}

/**
 * The same comparison over two event streams, in bounded memory: steps are lined up and compared
 * as both runs complete them (each run read at most a window ahead, see align.ts), and each change
 * goes to `onChange` at once. Returns both runs' totals.
 */
export async function diffRunStreams(
  a: AsyncIterable<AtofEvent>,
  b: AsyncIterable<AtofEvent>,
  onChange: (change: RunChange) => void | Promise<void>,
): Promise<{ changes: number; totals: { a: RunTotals; b: RunTotals } }> {
  const totals = { a: emptyTotals(), b: emptyTotals() };
  let count = 0;
  for await (const [sa, sb] of alignStepStreams(streamRunSteps(a), streamRunSteps(b))) {
    addToTotals(totals.a, sa);
    addToTotals(totals.b, sb);
    for (const change of stepChanges(sa, sb)) {
      count++;
      await onChange(change);
    }
  }
  return { changes: count, totals };
}
