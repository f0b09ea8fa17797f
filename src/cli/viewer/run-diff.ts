import { basename } from "node:path";
import { spanIdFromUuid } from "../../../exporters/otel/ids.js";
import { alignSteps } from "../../diff/align.js";
import { stepChanges } from "../../diff/changes.js";
import { streamRunSteps, type RunStep } from "../../diff/steps.js";
import { atofFileEvents, type AtofFileReadOptions } from "../atof-file-reader.js";
import { detectViewInput } from "./load.js";
import { InputError } from "../input.js";
import type { ViewDoc, ViewRunDiff } from "./model.js";

/** Two runs side by side: each step of both, with what changed between them. */
async function stepsOf(file: string, options: AtofFileReadOptions): Promise<RunStep[]> {
  if ((await detectViewInput(file)) !== "atof") throw new InputError(`--diff compares ATOF event logs; ${file} is not one`);
  const steps: RunStep[] = [];
  for await (const step of streamRunSteps(atofFileEvents(file, options))) steps.push(step);
  return steps;
}

/** The step-by-step comparison of two ATOF files, for the viewer's diff pane. */
export async function loadRunDiff(a: string, b: string, options: AtofFileReadOptions = {}): Promise<ViewRunDiff> {
  const stepsA = await stepsOf(a, options);
  const stepsB = await stepsOf(b, options);
  const steps: ViewRunDiff["steps"] = [];
  let changeCount = 0;
  // Lined up as `relaytrace diff` lines them up: a model call only one run made is a step with one side empty.
  for (const [x, y] of alignSteps(stepsA, stepsB)) {
    const changes = stepChanges(x, y);
    changeCount += changes.length;
    const step = (y ?? x)!.step;
    // Tool calls before the first model call are rare: no empty "step 0" block for them.
    if (step === 0 && !x?.tools.length && !y?.tools.length) continue;
    steps.push({ step, a: x ?? null, b: y ?? null, changes });
  }
  return { a: basename(a), b: basename(b), equal: changeCount === 0, changeCount, steps };
}

/** Marks the model-call spans of changed steps in the waterfall (`diff: "changed"` on their rows). */
export function markChangedSpans(doc: ViewDoc, diff: ViewRunDiff): void {
  const changed = new Set<string>();
  for (const s of diff.steps) {
    if (s.changes.length === 0) continue;
    for (const side of [s.a, s.b]) if (side?.model) changed.add(spanIdFromUuid(side.model.uuid));
  }
  for (const row of doc.spans) if (row.kind === "llm" && changed.has(row.id)) row.diff = "changed";
}
