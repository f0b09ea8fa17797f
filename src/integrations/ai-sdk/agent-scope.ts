import type { Json } from "../../events/json.js";
import type { ScopeControl } from "../../runtime/runtime.js";
import { runtimeOf, type AdapterOptions } from "../runtime-of.js";

/** Options of `traceAgent`. */
export interface TraceAgentOptions extends AdapterOptions {
  /** The start event's data (the prompt, say). */
  input?: Json;
  metadata?: Json;
}

/**
 * Runs a multi-step `generateText` or `streamText` run (or anything) inside one `agent` scope: the
 * `llm` scopes of `relaytraceMiddleware` and the `tool` scopes of `traceTools` nest under it. The
 * SDK gives a middleware no handle on the run a call belongs to, so the run is named here.
 */
export function traceAgent<T>(name: string, fn: (scope: ScopeControl) => T | Promise<T>, options: TraceAgentOptions = {}): Promise<T> {
  const { runtime: _runtime, ...scope } = options;
  return runtimeOf(options).withScope(name, fn, { category: "agent", ...scope });
}
