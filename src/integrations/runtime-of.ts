import { defaultRuntime } from "../runtime/default-runtime.js";
import type { Runtime } from "../runtime/runtime.js";

/** The options every adapter takes: the runtime to feed (default: the process-wide one). */
export interface AdapterOptions {
  runtime?: Runtime;
}

export function runtimeOf(options: AdapterOptions | undefined): Runtime {
  return options?.runtime ?? defaultRuntime();
}
