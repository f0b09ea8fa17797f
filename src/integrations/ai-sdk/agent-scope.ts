import type { Json } from "../../events/json.js";
import type { ScopeControl } from "../../runtime/runtime.js";
import { is } from "../../events/option-spec.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { isStreamRun, observeStreamRun } from "./stream-run.js";

/** Options of `traceAgent`. */
export interface TraceAgentOptions extends AdapterOptions {
  /** The start event's data (the prompt, say). */
  input?: Json;
  metadata?: Json;
}

const TRACE_AGENT_OPTIONS = declareAdapterOptions<TraceAgentOptions>("traceAgent", { input: is.anything, metadata: is.anything });

/**
 * Runs a multi-step `generateText` or `streamText` run (or anything) inside one `agent` scope: the
 * `llm` scopes of `relaytraceMiddleware` and the `tool` scopes of `traceTools` nest under it. The
 * SDK gives a middleware no handle on the run a call belongs to, so the run is named here.
 *
 * When `fn` returns a `streamText` result (or an agent's `stream()` result), the run goes on while
 * the app reads it: the app gets the result at once, and the scope ends when the stream it reads
 * is drained (with the run's error, if it finished with one), fails, or is cancelled.
 */
export function traceAgent<T>(name: string, fn: (scope: ScopeControl) => T | Promise<T>, options: TraceAgentOptions = {}): Promise<T> {
  const refused = TRACE_AGENT_OPTIONS.error(options);
  if (refused !== undefined) return Promise.reject(refused); // a Promise API reports bad input as a rejection
  const { runtime: _runtime, ...scope } = options;
  const runtime = runtimeOf(options);
  return new Promise<T>((resolve, reject) => {
    runtime
      .withScope(
        name,
        async (control) => {
          const value = await fn(control);
          if (!isStreamRun(value)) return value;
          const observed = observeStreamRun(value);
          resolve(observed.result);
          // The scope stays open until the stream ends; its error (or cancellation) ends it with ERROR.
          await observed.ended;
          return value;
        },
        { category: "agent", ...scope },
      )
      // Once the app has the stream, settling again is a no-op: the stream's error reached it there.
      .then(resolve, reject);
  });
}
