import { basename } from "node:path";
import { spanIdFromUuid } from "../../../exporters/otel/ids.js";
import { alignStepStreams } from "../../diff/align.js";
import { stepChanges } from "../../diff/changes.js";
import { streamRunSteps } from "../../diff/steps.js";
import { atofFileEvents, type AtofFileReadOptions } from "../atof-file-reader.js";
import { detectViewInput } from "./load.js";
import { InputError } from "../input.js";
import { changeExcerpt, stepExcerpt } from "./diff-excerpts.js";
import type { ViewDoc, ViewRunDiff } from "./model.js";

/**
 * The step-by-step comparison of two ATOF files, for the viewer's Diff tab: read and lined up as
 * `relaytrace diff` does (as streams, each run at most a window ahead), each step kept only as
 * the tab shows it, its values cut (see DIFF_PANE_VALUE_CHARS).
 */
export async function loadRunDiff(a: string, b: string, options: AtofFileReadOptions = {}): Promise<ViewRunDiff> {
  for (const file of [a, b])
    if ((await detectViewInput(file)) !== "atof") throw new InputError(`--diff compares ATOF event logs; ${file} is not one`);
  const steps: ViewRunDiff["steps"] = [];
  let changeCount = 0;
  // Lined up as `relaytrace diff` lines them up: a model call only one run made is a step with one side empty.
  for await (const [x, y] of alignStepStreams(streamRunSteps(atofFileEvents(a, options)), streamRunSteps(atofFileEvents(b, options)))) {
    const changes = stepChanges(x, y);
    changeCount += changes.length;
    const step = (y ?? x)!.step;
    // Tool calls before the first model call are rare: no empty "step 0" block for them.
    if (step === 0 && !x?.tools.length && !y?.tools.length) continue;
    steps.push({ step, a: x ? stepExcerpt(x) : null, b: y ? stepExcerpt(y) : null, changes: changes.map(changeExcerpt) });
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
