import type { ParsedToolCall, ProviderCodec } from "./providers/types.js";
import type { Answer, Request, ToolResult } from "./pending.js";
import { relayCallsOf, relayDeclined, relayResultFor } from "./relay.js";
import { haltResult, zeroUsage, type LoopResult } from "./loop.js";
import type { RunContext } from "./loop-context.js";
import { resolveWithAnswer, runToolCall, type CallSlot } from "./tool-runner.js";
import type { HaltRecord } from "./types.js";

/** Checks a resume before any scope opens; throws the resume errors. Returns the halted turn's index. */
export function validateResume(codec: ProviderCodec, history: unknown[], pending: Request, answer: Answer): number {
  if (!answer || answer.id !== pending.id) {
    throw new Error(`cannot resume — answer id "${answer?.id ?? ""}" does not echo the pending request id "${pending.id}"`);
  }
  if (!Array.isArray(history) || history.length === 0) throw new Error("cannot resume — no transcript supplied");
  const last = codec.lastToolTurn(history);
  if (!last) throw new Error("cannot resume — the transcript has no assistant turn with tool calls");
  return last.index;
}

function noResult(label: string): ToolResult {
  return { output: `no result supplied on resume for ${label}`, isError: true };
}

function relayNames(pending: Request): Map<string, string> {
  return new Map(relayCallsOf(pending).map((c) => [c.id, c.name]));
}

/** Without a halt record: every call of the last tool turn gets a host result or a "no result" error. */
function repairPlain(run: RunContext, history: unknown[], index: number, pending: Request, answer: Answer): unknown[] {
  const { codec } = run.settings;
  const calls = codec.lastToolTurn(history)!.calls;
  const names = relayNames(pending);
  const messages = history.slice(0, index + 1);
  const results = calls.map((c, i) => {
    const r = relayResultFor(answer, c.id, i === 0) ?? noResult(names.get(c.id) ?? c.id);
    return { id: c.id, name: c.name, output: r.output, isError: r.isError };
  });
  messages.push(...codec.toolResultMessages(results));
  return messages;
}

/**
 * With a halt record: completed results are kept; suspended slots are rebuilt in call
 * order. A non-relay call that suspends again halts the run again, with no LLM call.
 */
async function repairWithHalt(
  run: RunContext,
  history: unknown[],
  halt: HaltRecord,
  pending: Request,
  answer: Answer,
): Promise<{ messages: unknown[]; halted?: LoopResult }> {
  const { codec } = run.settings;
  const messages = history.slice(0, halt.assistantIndex + 1);
  const existing = codec.toolResultsAfter(history, halt.assistantIndex);
  const parsed = new Map(codec.toolCallsAt(history, halt.assistantIndex).map((c) => [c.id, c]));
  const relayIds = relayNames(pending);
  const outstandingRelay = halt.calls.filter((c) => c.state === "suspended" && relayIds.has(c.id)).length;
  const slots: CallSlot[] = [];
  for (const rec of halt.calls) {
    const call: ParsedToolCall = parsed.get(rec.id) ?? { id: rec.id, name: rec.name, args: {}, arguments: "{}" };
    if (rec.state === "completed") {
      slots.push({ call, args: call.args, result: existing.get(rec.id) ?? noResult(rec.name) });
    } else if (relayIds.has(rec.id)) {
      const result = !answer.ok
        ? relayDeclined(rec.name, answer)
        : (relayResultFor(answer, rec.id, outstandingRelay === 1) ?? noResult(rec.name));
      slots.push({ call, args: call.args, result });
    } else if (rec.requestId === pending.id) {
      slots.push(await resolveWithAnswer(run, call, call.args, 0, pending, answer, ""));
    } else {
      slots.push(await runToolCall(run, call, 0, false));
    }
  }
  if (slots.some((s) => s.suspended)) {
    const base = { toolCalls: [], toolCallCount: 0, usage: zeroUsage(), turns: 0, model: run.settings.model };
    return { messages, halted: haltResult(run, messages, slots, halt.assistantIndex, base) };
  }
  messages.push(
    ...codec.toolResultMessages(
      slots.map((s) => ({ id: s.call.id, name: s.call.name, output: s.result.output, isError: s.result.isError })),
    ),
  );
  return { messages };
}

/** Rebuilds the halted turn's results so the loop can continue with no new user turn. */
export async function repairTranscript(
  run: RunContext,
  history: unknown[],
  index: number,
  pending: Request,
  answer: Answer,
  halt?: HaltRecord,
): Promise<{ messages: unknown[]; halted?: LoopResult }> {
  if (!halt) return { messages: repairPlain(run, history, index, pending, answer) };
  return repairWithHalt(run, history, halt, pending, answer);
}

/** Abandon: every suspended slot becomes `abandoned (<reason>): <prompt>`. */
export function abandonTranscript(
  codec: ProviderCodec,
  history: unknown[],
  pending: Request,
  halt: HaltRecord | undefined,
  reason: string,
): unknown[] {
  const last = codec.lastToolTurn(history);
  const index = halt?.assistantIndex ?? last?.index;
  if (index === undefined) throw new Error("cannot abandon — the transcript has no assistant turn with tool calls");
  const existing = codec.toolResultsAfter(history, index);
  const calls = halt ? halt.calls.map((c) => ({ id: c.id, name: c.name })) : codec.toolCallsAt(history, index);
  const relayIds = relayNames(pending);
  const suspendedIds = new Set(
    halt
      ? halt.calls.filter((c) => c.state === "suspended").map((c) => c.id)
      : calls.filter((c) => relayIds.has(c.id) || !existing.has(c.id) || existing.get(c.id)!.output === pending.prompt).map((c) => c.id),
  );
  const results = calls.map((c) => {
    if (!suspendedIds.has(c.id)) {
      const kept = existing.get(c.id) ?? noResult(c.name);
      return { id: c.id, name: c.name, ...kept };
    }
    // The placeholder left by the halt is the suspended call's own prompt.
    const prompt = relayIds.has(c.id) ? pending.prompt : (existing.get(c.id)?.output ?? pending.prompt);
    return { id: c.id, name: c.name, output: `abandoned (${reason}): ${prompt}`, isError: true };
  });
  return [...history.slice(0, index + 1), ...codec.toolResultMessages(results)];
}
