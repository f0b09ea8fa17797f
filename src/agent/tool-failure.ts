import type { ToolResult } from "./pending.js";

/**
 * The error a tool's `execute` threw, kept beside the error result the model reads. The loop
 * rethrows it inside the managed call so the trace records the tool as failed (status ERROR),
 * then hands the model the error result as usual.
 */
const thrown = new WeakMap<ToolResult, { error: unknown }>();

/** An error result for a tool whose `execute` threw `error` (or timed out). */
export function failedResult(output: string, error: unknown): ToolResult {
  const result: ToolResult = { output, isError: true };
  thrown.set(result, { error });
  return result;
}

/** What `execute` threw to produce this result; undefined when the tool returned it. */
export function failureOf(result: ToolResult): { error: unknown } | undefined {
  return thrown.get(result);
}
