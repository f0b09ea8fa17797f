import type { Json } from "../events/json.js";
import { canonicalJson } from "../events/canonical-json.js";
import type { RunStep, StepToolCall, StepUsage } from "./steps.js";

/** A model call only one run made (a `status_changed` from or to null): what it said and did. */
export interface StepCall {
  output: string | null;
  usage: StepUsage;
  tools: { tool: string; args: Json; result: Json }[];
}

/**
 * One difference between two runs, at a step: the n-th model call of run B (of run A for a step
 * only A has); 0 for tool calls before any model call.
 */
export type RunChange =
  | { kind: "tool_call_added"; step: number; tool: string; a: null; b: { args: Json; result: Json } }
  | { kind: "tool_call_removed"; step: number; tool: string; a: { args: Json; result: Json }; b: null }
  | { kind: "tool_args_changed"; step: number; tool: string; a: Json; b: Json }
  | { kind: "tool_result_changed"; step: number; tool: string; a: Json; b: Json }
  | { kind: "output_changed"; step: number; a: string | null; b: string | null }
  | { kind: "status_changed"; step: number; a: string | null; b: string | null; call?: StepCall }
  | { kind: "usage_changed"; step: number; a: StepUsage; b: StepUsage; latencyMs: { a: number | null; b: number | null } };

export type RunChangeKind = RunChange["kind"];

/** Indexes of `a` by a key, in order; `take` hands out the first one not yet used. */
function queues(keys: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  keys.forEach((key, i) => {
    const list = out.get(key);
    if (list) list.push(i);
    else out.set(key, [i]);
  });
  return out;
}

/**
 * Tool calls of one step lined up: same name and arguments first, then same name in order; the
 * rest were added or removed. Linear: each pass looks calls up by key.
 */
function alignTools(
  a: readonly StepToolCall[],
  b: readonly StepToolCall[],
): { pairs: [number, number][]; removed: number[]; added: number[] } {
  const usedA = new Uint8Array(a.length);
  const matchOf = new Int32Array(b.length).fill(-1);
  const exactKey = (t: StepToolCall) => JSON.stringify(t.name) + canonicalJson(t.args);
  const pass = (key: (t: StepToolCall) => string) => {
    const byKey = queues(a.map(key));
    for (let j = 0; j < b.length; j++) {
      if (matchOf[j]! >= 0) continue;
      const list = byKey.get(key(b[j]!));
      while (list && list.length > 0 && usedA[list[0]!]) list.shift();
      const i = list?.shift();
      if (i === undefined) continue;
      usedA[i] = 1;
      matchOf[j] = i;
    }
  };
  pass(exactKey);
  pass((t) => t.name);
  const pairs: [number, number][] = [];
  const added: number[] = [];
  for (let j = 0; j < b.length; j++) {
    if (matchOf[j]! >= 0) pairs.push([matchOf[j]!, j]);
    else added.push(j);
  }
  const removed: number[] = [];
  for (let i = 0; i < a.length; i++) if (!usedA[i]) removed.push(i);
  return { pairs, removed, added };
}

function toolChanges(step: number, a: readonly StepToolCall[], b: readonly StepToolCall[]): RunChange[] {
  const { pairs, removed, added } = alignTools(a, b);
  const out: RunChange[] = [];
  for (const [i, j] of pairs) {
    const ta = a[i]!;
    const tb = b[j]!;
    if (canonicalJson(ta.args) !== canonicalJson(tb.args))
      out.push({ kind: "tool_args_changed", step, tool: tb.name, a: ta.args, b: tb.args });
    const resultA = ta.result ?? null;
    const resultB = tb.result ?? null;
    if (canonicalJson(resultA) !== canonicalJson(resultB) || ta.status !== tb.status)
      out.push({ kind: "tool_result_changed", step, tool: tb.name, a: resultA, b: resultB });
  }
  for (const j of added)
    out.push({ kind: "tool_call_added", step, tool: b[j]!.name, a: null, b: { args: b[j]!.args, result: b[j]!.result ?? null } });
  for (const i of removed)
    out.push({ kind: "tool_call_removed", step, tool: a[i]!.name, a: { args: a[i]!.args, result: a[i]!.result ?? null }, b: null });
  return out;
}

function sameUsage(a: StepUsage, b: StepUsage): boolean {
  return a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.totalTokens === b.totalTokens && a.costUsd === b.costUsd;
}

function ms(us: number | undefined): number | null {
  return us === undefined ? null : Math.round(us / 100) / 10;
}

/** The model call's changes: its status, its reply's text, its token counts (latency is carried, never compared). */
function modelChanges(step: number, a: RunStep["model"], b: RunStep["model"]): RunChange[] {
  const out: RunChange[] = [];
  const statusA = a?.status ?? null;
  const statusB = b?.status ?? null;
  if (statusA !== statusB) out.push({ kind: "status_changed", step, a: statusA, b: statusB });
  const textA = a?.text ?? null;
  const textB = b?.text ?? null;
  if (textA !== textB) out.push({ kind: "output_changed", step, a: textA, b: textB });
  const usageA = a?.usage ?? {};
  const usageB = b?.usage ?? {};
  if (!sameUsage(usageA, usageB))
    out.push({ kind: "usage_changed", step, a: usageA, b: usageB, latencyMs: { a: ms(a?.latencyUs), b: ms(b?.latencyUs) } });
  return out;
}

/** A model call only one run made, as one change: its status from (or to) null, with what it said and did. */
function loneStep(side: "a" | "b", step: RunStep, model: NonNullable<RunStep["model"]>): RunChange {
  const call: StepCall = {
    output: model.text ?? null,
    usage: model.usage,
    tools: step.tools.map((t) => ({ tool: t.name, args: t.args, result: t.result ?? null })),
  };
  return side === "a"
    ? { kind: "status_changed", step: step.step, a: model.status, b: null, call }
    : { kind: "status_changed", step: step.step, a: null, b: model.status, call };
}

/**
 * The changes from step `a` to step `b`. Either may be missing (a step only one run has): a
 * model call only one run made is one change, its tool calls carried in it.
 */
export function stepChanges(a: RunStep | undefined, b: RunStep | undefined): RunChange[] {
  if (a === undefined && b?.model) return [loneStep("b", b, b.model)];
  if (b === undefined && a?.model) return [loneStep("a", a, a.model)];
  const step = (b ?? a)!.step;
  return [...modelChanges(step, a?.model ?? null, b?.model ?? null), ...toolChanges(step, a?.tools ?? [], b?.tools ?? [])];
}
