import { propagationContextToWire } from "../runtime/propagation.js";
import type { Json } from "../events/json.js";
import type { ParsedToolCall, ToolDeclaration } from "./providers/types.js";
import type { Request } from "./pending.js";
import { appendResults, balanceHalt, recordsOf, surfacedRequest } from "./halt.js";
import { callLlm, streamLlm } from "./llm-call.js";
import type { RunContext } from "./loop-context.js";
import { RecordedTranscript } from "./recorded-transcript.js";
import { shapeBody } from "./request-body.js";
import { runToolCall, type CallSlot } from "./tool-runner.js";
import type { RunResult, RunUsage, ToolCallRecord } from "./types.js";

/** A run's result before the agent scope stamps its uuid. */
export type LoopResult = Omit<RunResult, "runUuid">;

export function zeroUsage(): RunUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Runs every call of a turn concurrently; settles all of them before rethrowing, in call order. */
export async function runCalls(run: RunContext, calls: ParsedToolCall[], turn: number, exec = runToolCall): Promise<CallSlot[]> {
  const settled = await Promise.allSettled(calls.map((c) => exec(run, c, turn)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<CallSlot>).value);
}

/**
 * Halts durably: balances the turn, surfaces the request with the trace context a resumed
 * run needs (captured here, inside the agent scope, so its parent is the agent scope).
 */
export function haltResult(
  run: RunContext,
  messages: unknown[],
  slots: CallSlot[],
  assistantIndex: number,
  base: Omit<LoopResult, "status" | "text" | "messages">,
): LoopResult {
  const surfaced = surfacedRequest(slots)!;
  const halt = balanceHalt(slots, assistantIndex);
  appendResults(run.settings.codec, messages, slots);
  let traceContext: Json | undefined;
  try {
    // Stored in the halt record as wire JSON (snake_case), as NeMo Relay reads it.
    traceContext = propagationContextToWire(run.settings.runtime.capturePropagationContext()) as unknown as Json;
  } catch {
    traceContext = undefined;
  }
  const request: Request = traceContext ? { ...surfaced, data: { ...surfaced.data, traceContext } } : surfaced;
  run.emit?.({ type: "pending", request });
  return {
    ...base,
    toolCalls: [...base.toolCalls, ...recordsOf(slots)],
    toolCallCount: base.toolCallCount + slots.length,
    status: "pending",
    text: request.prompt,
    messages,
    pending: request,
    halt,
  };
}

/** The turn loop: call the model, run the turn's tools, repeat until text, a halt or `maxTurns`. */
export async function runTurns(run: RunContext, messages: unknown[], stream: boolean, prior: ToolCallRecord[] = []): Promise<LoopResult> {
  const transcript = new RecordedTranscript(run.settings);
  const result = await turnLoop(run, messages, stream, prior, transcript);
  transcript.release(result.messages);
  return result;
}

async function turnLoop(
  run: RunContext,
  messages: unknown[],
  stream: boolean,
  prior: ToolCallRecord[],
  transcript: RecordedTranscript,
): Promise<LoopResult> {
  const { settings } = run;
  const usage = zeroUsage();
  const toolCalls: ToolCallRecord[] = [...prior];
  let tools: ToolDeclaration[] = run.toolkit.declarations();
  let lastText = "";
  let turns = 0;
  const systemPrompt = [settings.systemPrompt, run.toolkit.skillsPrompt()].filter((s) => s).join("\n\n");
  for (let turn = 0; turn < settings.maxTurns; turn++) {
    run.signal.throwIfAborted();
    const hooked = await settings.hooks.beforeLLM({ messages, tools, model: settings.model, turn });
    if (hooked.messages) messages.splice(0, messages.length, ...hooked.messages);
    if (hooked.tools) tools = hooked.tools;
    transcript.prepare(messages);
    const built = settings.codec.buildBody({ model: settings.model, systemPrompt, messages, tools, stream });
    transcript.shareTools(built, tools);
    // base → requestParams → bodyTransform: the result is both what is sent and what is traced.
    const body = shapeBody(settings, built);
    const { parsed, raw } = stream ? await streamLlm(run, body, turn) : await callLlm(run, body, turn);
    turns++;
    usage.promptTokens += parsed.usage.promptTokens;
    usage.completionTokens += parsed.usage.completionTokens;
    usage.totalTokens += parsed.usage.totalTokens;
    await settings.hooks.afterLLM({ response: stream ? { streamed: true, usage: parsed.usage } : raw, model: settings.model, turn });
    messages.push(...parsed.assistantMessages);
    lastText = parsed.text;
    if (stream) run.emit?.({ type: "usage", usage: { ...usage } });
    const base = { toolCalls, toolCallCount: toolCalls.length, usage, turns, model: parsed.model ?? settings.model };
    if (parsed.toolCalls.length === 0) return { ...base, status: "done", text: parsed.text, messages };
    for (const c of parsed.toolCalls) run.emit?.({ type: "tool_call", id: c.id, name: c.name, args: c.args });
    const slots = await runCalls(run, parsed.toolCalls, turn);
    if (slots.some((s) => s.suspended)) return haltResult(run, messages, slots, messages.length - 1, base);
    appendResults(settings.codec, messages, slots);
    toolCalls.push(...recordsOf(slots));
    for (const s of slots)
      run.emit?.({ type: "tool_result", id: s.call.id, name: s.call.name, output: s.result.output, isError: s.result.isError });
  }
  const base = { toolCalls, toolCallCount: toolCalls.length, usage, turns, model: settings.model, messages };
  return lastText === "" ? { ...base, status: "incomplete", text: "", limit: "maxTurns" } : { ...base, status: "done", text: lastText };
}
