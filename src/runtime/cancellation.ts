export type ManagedKind = "tool" | "llm";

/** What an aborted managed call reports, per kind: a cancelled LLM call never says "tool". */
export function cancellationMessage(kind: ManagedKind): string {
  return kind === "tool" ? "tool execution cancelled" : "llm call cancelled";
}
