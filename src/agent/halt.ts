import type { ProviderCodec } from "./providers/types.js";
import type { Request } from "./pending.js";
import { isRelayRequest, mergeRelayRequests } from "./relay.js";
import type { CallSlot } from "./tool-runner.js";
import type { HaltRecord, ToolCallRecord } from "./types.js";

/** Appends one result per slot, in call order, in the provider's dialect. */
export function appendResults(codec: ProviderCodec, messages: unknown[], slots: CallSlot[]): void {
  messages.push(
    ...codec.toolResultMessages(
      slots.map((s) => ({ id: s.call.id, name: s.call.name, output: s.result.output, isError: s.result.isError })),
    ),
  );
}

export function recordsOf(slots: CallSlot[]): ToolCallRecord[] {
  return slots.map((s) => {
    const r: ToolCallRecord = { id: s.call.id, name: s.call.name, args: s.args, output: s.result.output, isError: s.result.isError };
    if (s.result.metadata) r.metadata = s.result.metadata;
    if (s.suspended) r.pending = true;
    return r;
  });
}

/**
 * The request a halted turn surfaces: the first suspension in call order; when it is a relay
 * request, every relay call of the turn folds into it, in call order.
 */
export function surfacedRequest(slots: CallSlot[]): Request | undefined {
  const suspended = slots.filter((s) => s.suspended).map((s) => s.suspended!);
  const first = suspended[0];
  if (!first) return undefined;
  return isRelayRequest(first) ? mergeRelayRequests(suspended) : first;
}

/**
 * Balances a halted turn: suspended slots get the placeholder `{output: prompt, isError: true}`
 * so every call has exactly one result. Returns the halt record.
 */
export function balanceHalt(slots: CallSlot[], assistantIndex: number): HaltRecord {
  for (const s of slots) if (s.suspended) s.result = { output: s.suspended.prompt, isError: true };
  return {
    assistantIndex,
    calls: slots.map((s) =>
      s.suspended
        ? { id: s.call.id, name: s.call.name, state: "suspended" as const, requestId: s.suspended.id }
        : { id: s.call.id, name: s.call.name, state: "completed" as const },
    ),
  };
}
