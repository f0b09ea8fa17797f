import { alignSteps } from "../../../diff/align.js";
import { stepChanges } from "../../../diff/changes.js";
import { runSteps } from "../../../diff/steps.js";
import { AtofSpanCollector } from "../../viewer/from-atof.js";
import { layoutSpans, totalsOf } from "../../viewer/layout.js";
import type { ViewDoc, ViewRunDiff } from "../../viewer/model.js";
import type { CompareAnswer, TraceAnswer } from "../model.js";
import type { LiveIndex } from "./live-index.js";
import { readRunEvents, type RunEvents } from "./trace-events.js";

/** A run the index does not know (or no longer knows). */
export class UnknownRun extends Error {
  constructor(readonly id: string) {
    super(`no run with id ${id}`);
    this.name = "UnknownRun";
  }
}

async function eventsOf(index: LiveIndex, id: string): Promise<{ read: RunEvents; summary: TraceAnswer["run"] }> {
  const found = index.find(id);
  if (!found) throw new UnknownRun(id);
  const read = await readRunEvents(found.record, found.files);
  return { read, summary: found.record.summary(index.fileNames()) };
}

function missingNote(read: RunEvents): string[] {
  return read.missing > 0
    ? [`${read.missing} line${read.missing === 1 ? "" : "s"} of this run could not be read back (file deleted or changed)`]
    : [];
}

/** One run as the viewer's document: its spans laid out, their detail resolved (what the trace view shows). */
export async function traceAnswer(index: LiveIndex, id: string): Promise<TraceAnswer> {
  const { read, summary } = await eventsOf(index, id);
  const collector = new AtofSpanCollector();
  for (const { event, source } of read.events) collector.add(event, source);
  const { spans, traces } = layoutSpans(collector.spans());
  const doc: ViewDoc = {
    title: summary.name,
    sources: summary.files,
    spans,
    traces,
    trajectories: [],
    totals: totalsOf(spans, traces, []),
    notes: [...missingNote(read), ...collector.notes()],
  };
  return { run: summary, doc };
}

/** Two runs step by step, lined up and compared as `relaytrace diff` does. */
export async function compareAnswer(index: LiveIndex, a: string, b: string): Promise<CompareAnswer> {
  const left = await eventsOf(index, a);
  const right = await eventsOf(index, b);
  const steps: ViewRunDiff["steps"] = [];
  let changeCount = 0;
  const stepsA = runSteps(left.read.events.map((e) => e.event));
  const stepsB = runSteps(right.read.events.map((e) => e.event));
  for (const [x, y] of alignSteps(stepsA, stepsB)) {
    const changes = stepChanges(x, y);
    changeCount += changes.length;
    const step = (y ?? x)!.step;
    // Tool calls before the first model call are rare: no empty "step 0" block for them.
    if (step === 0 && !x?.tools.length && !y?.tools.length) continue;
    steps.push({ step, a: x ?? null, b: y ?? null, changes });
  }
  const diff: ViewRunDiff = { a: left.summary.name, b: right.summary.name, equal: changeCount === 0, changeCount, steps };
  return { a: left.summary, b: right.summary, diff };
}
