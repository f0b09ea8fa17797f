import type { Json, JsonObject } from "../events/json.js";
import type { PromptRef } from "../runtime/prompt.js";
import type { PropagationContext, PropagationContextWire } from "../runtime/types.js";
import type { LoopResult } from "./loop.js";
import { emitMetric, type ClientSettings, type RunContext } from "./loop-context.js";
import type { Toolkit } from "./toolkit.js";
import type { RunResult, StreamEvent } from "./types.js";

export interface AgentScopeOptions {
  toolkit: Toolkit;
  input: Json;
  metadata?: JsonObject;
  signal?: AbortSignal;
  /** Continue the trace of a halted run (durable resume). */
  traceContext?: unknown;
  emit?: (event: StreamEvent) => void;
  /** The run's prompt option (checked), over the client's. */
  prompt?: PromptRef;
}

/** The run signal: the caller's signal and the whole-run deadline, whichever fires first. */
function runSignal(callerSignal: AbortSignal | undefined, timeoutMs: number | undefined): AbortSignal {
  const signals: AbortSignal[] = [];
  if (callerSignal) signals.push(callerSignal);
  if (timeoutMs !== undefined && timeoutMs > 0) signals.push(AbortSignal.timeout(timeoutMs));
  if (signals.length === 0) return new AbortController().signal;
  return signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
}

function endOutput(r: LoopResult): JsonObject {
  const out: JsonObject = {
    status: r.status,
    text: r.text,
    turns: r.turns,
    toolCallCount: r.toolCallCount,
    usage: { ...r.usage },
  };
  if (r.limit) out.limit = r.limit;
  if (r.pending) out.pending = r.pending as unknown as Json;
  return out;
}

/** A stored trace context (the wire shape a halt record keeps, or a context object). */
function isPropagationContext(v: unknown): v is PropagationContextWire | PropagationContext {
  if (typeof v !== "object" || v === null || (v as { version?: unknown }).version !== 1) return false;
  return typeof (v as PropagationContextWire).parent_uuid === "string" || typeof (v as PropagationContext).parentUuid === "string";
}

/**
 * Runs `body` as one `agent` scope: sets the end output and reports the `run` metric. The scope
 * always ends (ERROR when `body` throws). Suspensions need nothing here: the runtime records them.
 */
export async function inAgentScope(
  settings: ClientSettings,
  opts: AgentScopeOptions,
  body: (run: RunContext) => Promise<LoopResult>,
): Promise<RunResult> {
  const { runtime } = settings;
  const signal = runSignal(opts.signal, settings.timeoutMs);
  const scoped = () =>
    runtime.withScope(
      settings.agentName,
      async (scope) => {
        const run: RunContext = { settings, toolkit: opts.toolkit, signal, runUuid: scope.uuid };
        if (opts.emit) run.emit = opts.emit;
        const prompt = opts.prompt ?? settings.prompt;
        if (prompt) run.prompt = prompt;
        const started = Date.now();
        try {
          const result = await body(run);
          scope.setOutput(endOutput(result));
          emitMetric(settings, {
            event: "run",
            model: settings.model,
            turns: result.turns,
            toolCalls: result.toolCallCount,
            totalTokens: result.usage.totalTokens,
            ms: Date.now() - started,
            runUuid: scope.uuid,
          });
          return { ...result, runUuid: scope.uuid };
        } catch (err) {
          emitMetric(settings, {
            event: "run",
            model: settings.model,
            turns: 0,
            toolCalls: 0,
            totalTokens: 0,
            ms: Date.now() - started,
            error: err instanceof Error ? err.message : String(err),
            runUuid: scope.uuid,
          });
          throw err;
        }
      },
      { category: "agent", input: opts.input, metadata: opts.metadata ?? null },
    );
  if (isPropagationContext(opts.traceContext)) return runtime.withPropagation(opts.traceContext, scoped);
  return scoped();
}
