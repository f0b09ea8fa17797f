import type { LLMResult } from "@langchain/core/outputs";

/** The most tool calls remembered under one parent run; past it the oldest is forgotten. */
const MAX_PER_PARENT = 256;

interface AskedCall {
  id: string;
  name: string;
  /** The call's arguments as LangChain hands them to the tool run: `JSON.stringify(args)`. */
  input: string;
}

/**
 * The tool calls a model run asked for, by the model run's parent: @langchain/core releases that do
 * not pass the tool call id to `handleToolStart` (1.0 and early 1.1) still run the asked-for tool
 * under the same parent with the call's arguments, so a tool run matching one call (same name, same
 * arguments, first unclaimed) is that call.
 */
export class AskedToolCalls {
  private readonly byParent = new Map<string, AskedCall[]>();

  /** Remembers the tool calls in a model run's output. */
  add(parentRunId: string | undefined, output: LLMResult): void {
    if (parentRunId === undefined) return;
    const asked: AskedCall[] = [];
    for (const generation of output.generations?.[0] ?? []) {
      const calls = (generation as { message?: { tool_calls?: unknown } }).message?.tool_calls;
      if (!Array.isArray(calls)) continue;
      for (const call of calls as { id?: unknown; name?: unknown; args?: unknown }[]) {
        if (typeof call?.id !== "string" || typeof call.name !== "string") continue;
        asked.push({ id: call.id, name: call.name, input: JSON.stringify(call.args ?? {}) });
      }
    }
    if (asked.length === 0) return;
    const list = this.byParent.get(parentRunId) ?? [];
    list.push(...asked);
    if (list.length > MAX_PER_PARENT) list.splice(0, list.length - MAX_PER_PARENT);
    this.byParent.set(parentRunId, list);
  }

  /** Claims the id of the first remembered call under the parent with this name and arguments. */
  claim(parentRunId: string | undefined, name: string, input: string): string | undefined {
    const list = parentRunId !== undefined ? this.byParent.get(parentRunId) : undefined;
    const at = list?.findIndex((c) => c.name === name && c.input === input) ?? -1;
    if (at < 0) return undefined;
    return list!.splice(at, 1)[0]!.id;
  }

  /** Forgets the calls under a run that ended. */
  forget(runId: string): void {
    this.byParent.delete(runId);
  }
}
