import type { Json } from "../../events/json.js";
import { jsonTextChunks } from "../../events/json-text.js";
import type { RunChange, StepCall } from "../../diff/changes.js";
import type { RunStep } from "../../diff/steps.js";

/**
 * The most characters of one value (a text, or another value's JSON text) the Diff tab holds:
 * the waterfall's span detail shows it whole, so the tab need not hold every run's content a
 * second (and, with the changes, a third and fourth) time.
 */
export const DIFF_PANE_VALUE_CHARS = 2000;

/** `value`, or, when longer than the limit, its first characters and how long it was, as a text of its own. */
export function excerpt<T extends Json | undefined>(value: T, limit = DIFF_PANE_VALUE_CHARS): T | string {
  if (value === undefined || value === null) return value;
  if (typeof value === "string") return value.length <= limit ? value : own(`${value.slice(0, limit)}… (${value.length} characters)`);
  let text = "";
  for (const chunk of jsonTextChunks(value)) {
    text += chunk;
    if (text.length > limit) return own(`${text.slice(0, limit)}… (more than ${limit} characters of JSON)`);
  }
  return value;
}

/** A text that shares no memory with a longer one it was cut from. */
function own(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** A step as the Diff tab shows it: its texts, arguments and results cut to the limit. */
export function stepExcerpt(step: RunStep): RunStep {
  return {
    step: step.step,
    model: step.model === null ? null : { ...step.model, text: excerpt(step.model.text) },
    tools: step.tools.map((t) => ({ ...t, args: excerpt(t.args), result: excerpt(t.result) })),
  };
}

function callExcerpt(call: StepCall): StepCall {
  return {
    output: excerpt(call.output),
    usage: call.usage,
    tools: call.tools.map((t) => ({ tool: t.tool, args: excerpt(t.args), result: excerpt(t.result) })),
  };
}

/** A change as the Diff tab shows it: both values cut to the limit. */
export function changeExcerpt(change: RunChange): RunChange {
  switch (change.kind) {
    case "tool_call_added":
      return { ...change, b: { args: excerpt(change.b.args), result: excerpt(change.b.result) } };
    case "tool_call_removed":
      return { ...change, a: { args: excerpt(change.a.args), result: excerpt(change.a.result) } };
    case "tool_args_changed":
    case "tool_result_changed":
      return { ...change, a: excerpt(change.a), b: excerpt(change.b) };
    case "output_changed":
      return { ...change, a: excerpt(change.a), b: excerpt(change.b) };
    case "status_changed":
      return change.call === undefined ? change : { ...change, call: callExcerpt(change.call) };
    case "usage_changed":
      return change;
  }
}
