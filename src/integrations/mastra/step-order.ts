import { dateOf } from "./span-fields.js";
import type { Step, TrackedSpan } from "./tracked-span.js";

/** How held tool calls are recorded once they are let go: their start, and the end Mastra already gave them. */
export interface ToolRecorder {
  openTool(tracked: TrackedSpan): void;
  endHeldTool(tracked: TrackedSpan): void;
}

/**
 * The order of a model step's records. Mastra ends a provider call's span only after the tools it
 * asked for have run, while a trace reads call first, then its tools: a tool call that starts
 * while its step's call is open is held, and recorded when that call ends (or earlier, when a
 * child of the tool needs its scope, or at eviction or shutdown).
 */
export class StepOrder {
  constructor(private readonly recorder: ToolRecorder) {}

  /** A step of a generation (its calls are exported as their own spans) or a `model_step` (which may stand for its call). */
  newStep(standsForCall: boolean): Step {
    return { deferred: [], sawInference: false, standsForCall };
  }

  /** A tool call started under `step`: held while the step's call is open, else recorded now. */
  toolStarted(step: Step | undefined, tracked: TrackedSpan): void {
    const start = dateOf(tracked.span.startTime);
    if (step) step.firstToolStart ??= start;
    if (step && (step.inference || (step.standsForCall && !step.sawInference))) {
      tracked.deferredIn = step;
      step.deferred.push(tracked);
      return;
    }
    this.recorder.openTool(tracked);
  }

  /** A provider call opened in `step`: tool calls starting from now wait for it. */
  callStarted(step: Step | undefined, tracked: TrackedSpan): void {
    if (!step) return;
    step.inference = tracked;
    step.sawInference = true;
    step.firstToolStart = undefined;
  }

  /** A provider call (or the step standing for it) ended: every held tool call is recorded. */
  callEnded(step: Step | undefined, tracked: TrackedSpan): void {
    if (!step) return;
    if (step.inference === tracked) step.inference = undefined;
    this.releaseAll(step);
  }

  /** Records the tool calls a step held: every start, then the ends they already had, in time order (they may run concurrently). */
  releaseAll(step: Step): void {
    const waiting = step.deferred.splice(0);
    for (const tracked of waiting) {
      tracked.deferredIn = undefined;
      this.recorder.openTool(tracked);
    }
    const ended = waiting.filter((t) => t.ended !== undefined);
    ended.sort((a, b) => (dateOf(a.ended!.endTime)?.getTime() ?? 0) - (dateOf(b.ended!.endTime)?.getTime() ?? 0));
    for (const tracked of ended) this.recorder.endHeldTool(tracked);
  }

  /** Records one held tool call now (a child needs its scope): its start, and its end if it had one. */
  release(tracked: TrackedSpan): void {
    const step = tracked.deferredIn;
    if (!step) return;
    tracked.deferredIn = undefined;
    const at = step.deferred.indexOf(tracked);
    if (at >= 0) step.deferred.splice(at, 1);
    this.recorder.openTool(tracked);
    if (tracked.ended) this.recorder.endHeldTool(tracked);
  }
}
