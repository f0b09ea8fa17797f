import type { ToolExecutionOptions, ToolSet } from "ai";
import type { Json } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";

/** Options of `traceTools`. */
export type TraceToolsOptions = AdapterOptions;

const TRACE_TOOLS_OPTIONS = declareAdapterOptions<TraceToolsOptions>("traceTools", {});

type Execute = (input: unknown, options: ToolExecutionOptions) => unknown;

/** The last value of a streaming tool (an async iterable of preliminary results), or the value itself. */
async function settle(value: unknown): Promise<unknown> {
  const resolved = await value;
  if (resolved !== null && typeof resolved === "object" && Symbol.asyncIterator in resolved) {
    let last: unknown;
    for await (const item of resolved as AsyncIterable<unknown>) last = item;
    return last;
  }
  return resolved;
}

/**
 * The same tool set with each `execute` run through `runtime.executeTool`, keyed by the SDK's
 * `toolCallId`: guardrails, intercepts (annotations, pending marks) and sanitizers apply as for
 * any relaytrace tool. A guardrail refusal throws, which the SDK hands to the model as the tool's
 * error while the run goes on. The app gets what the execution chain returned, unsanitized.
 */
export function traceTools<TOOLS extends ToolSet>(tools: TOOLS, options: TraceToolsOptions = {}): TOOLS {
  TRACE_TOOLS_OPTIONS.check(options);
  const traced: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: Execute }).execute;
    if (typeof execute !== "function") {
      traced[name] = tool;
      continue;
    }
    traced[name] = {
      ...tool,
      execute: async (input: unknown, sdkOptions: ToolExecutionOptions) => {
        // The app's value travels beside the JSON copy, so the SDK gets exactly what the tool returned.
        const originals = new Map<Json, unknown>();
        // The event records a JSON copy; the tool runs with the SDK's own input, unless a request
        // or execution intercept rewrote the arguments: then it runs with theirs.
        const recorded = toJsonSafe(input);
        const outcome = await runtimeOf(options).executeTool(
          name,
          recorded,
          async (args) => {
            const value = await settle(execute.call(tool, args === recorded ? input : args, sdkOptions));
            const result = toJsonSafe(value);
            originals.set(result, value);
            return { result };
          },
          { toolCallId: sdkOptions.toolCallId, ...(sdkOptions.abortSignal ? { signal: sdkOptions.abortSignal } : {}) },
        );
        return originals.has(outcome.result) ? originals.get(outcome.result) : outcome.result;
      },
    };
  }
  return traced as TOOLS;
}
