/** The kinds of traced call; a scope is the call whose body is the caller's own code. */
export type CallKind = "scope" | "tool" | "llm";

/** What an aborted call reports, per kind: a cancelled LLM call never says "tool". */
export function cancellationMessage(kind: CallKind): string {
  return kind === "tool" ? "tool execution cancelled" : kind === "llm" ? "llm call cancelled" : "scope cancelled";
}
