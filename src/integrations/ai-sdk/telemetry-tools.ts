import type { ToolHandle } from "../../runtime/types.js";

/** Removes `handle` from the list of `id` in `lists`, dropping the list once empty. */
function remove(lists: Map<string, ToolHandle[]>, id: string, handle: ToolHandle): void {
  const list = lists.get(id);
  const at = list?.indexOf(handle) ?? -1;
  if (at < 0) return;
  list!.splice(at, 1);
  if (list!.length === 0) lists.delete(id);
}

function push(lists: Map<string, ToolHandle[]>, id: string, handle: ToolHandle): void {
  const list = lists.get(id);
  if (list === undefined) lists.set(id, [handle]);
  else list.push(handle);
}

/**
 * The tool executions of one run in flight. Providers send duplicate tool call ids, so the id
 * alone cannot say which execution an event belongs to. The SDK hands the start, the
 * `executeTool` wrapper and the end of one execution the same `toolCall` object, which identifies
 * it. When the SDK copied that object (`recordInputs: false` strips the input from a copy), the
 * order decides: the wrapper runs the executions of an id in the order they started, and the end
 * of each follows its wrapper's return, so an end closes the execution of its id that returned first.
 */
export class RunningTools {
  /** Open executions in start order, per tool call id. */
  private readonly open = new Map<string, ToolHandle[]>();
  /** Open executions whose `execute` returned (their end is due), in the order they returned. */
  private readonly returned = new Map<string, ToolHandle[]>();
  private readonly byCall = new WeakMap<object, ToolHandle>();
  /** Executions an `executeTool` wrapper already runs. */
  private readonly claimed = new WeakSet<ToolHandle>();

  add(toolCall: unknown, toolCallId: string, handle: ToolHandle): void {
    push(this.open, toolCallId, handle);
    if (typeof toolCall === "object" && toolCall !== null) this.byCall.set(toolCall, handle);
  }

  /** The open execution `toolCall` started, if that object is known. */
  private own(toolCall: unknown, toolCallId: string): ToolHandle | undefined {
    const handle = typeof toolCall === "object" && toolCall !== null ? this.byCall.get(toolCall) : undefined;
    return handle !== undefined && this.open.get(toolCallId)?.includes(handle) ? handle : undefined;
  }

  /** The open execution an end event closes (its own, else the first of its id to return, else the oldest), removed. */
  take(toolCall: unknown, toolCallId: string): ToolHandle | undefined {
    const handle = this.own(toolCall, toolCallId) ?? this.returned.get(toolCallId)?.[0] ?? this.open.get(toolCallId)?.[0];
    if (handle === undefined) return undefined;
    remove(this.open, toolCallId, handle);
    remove(this.returned, toolCallId, handle);
    return handle;
  }

  /** The open execution an `executeTool` call runs: its own, else the oldest of its id not yet claimed. */
  claim(toolCall: unknown, toolCallId: string): ToolHandle | undefined {
    const handle = this.own(toolCall, toolCallId) ?? this.open.get(toolCallId)?.find((h) => !this.claimed.has(h));
    if (handle !== undefined) this.claimed.add(handle);
    return handle;
  }

  /** `handle`'s `execute` returned or threw: its end event comes next. */
  settled(toolCallId: string, handle: ToolHandle): void {
    if (this.open.get(toolCallId)?.includes(handle)) push(this.returned, toolCallId, handle);
  }

  /** Every open execution, removed: the run ends and takes them with it. */
  drain(): ToolHandle[] {
    const all = [...this.open.values()].flat();
    this.open.clear();
    this.returned.clear();
    return all;
  }
}
