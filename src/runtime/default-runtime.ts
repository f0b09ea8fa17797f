import { describeValue } from "../events/option-spec.js";
import { Runtime } from "./runtime.js";

// On globalThis under a registry symbol: duplicated copies of the package share one default.
const KEY = Symbol.for("relaytrace.defaultRuntime");
const holder = globalThis as unknown as Record<symbol, Runtime | undefined>;

/**
 * The process-wide runtime used wherever none is passed (the agent loop, the adapters, the
 * provider SDK wrappers): the one `setDefaultRuntime` set, else one created on first use, with no
 * exporters.
 */
export function defaultRuntime(): Runtime {
  return (holder[KEY] ??= new Runtime());
}

/**
 * Makes `runtime` the process-wide default (undefined: forget it, so the next `defaultRuntime()`
 * creates a new one). Returns the runtime it replaces, if one had been set or created. What reads
 * the default at each call — the provider SDK wrappers — uses the new one from its next call;
 * clients created earlier keep the runtime they were created with.
 */
export function setDefaultRuntime(runtime: Runtime | undefined): Runtime | undefined {
  // Checked by its methods, not its class: a runtime from another copy of the package is one too.
  if (runtime !== undefined && typeof (runtime as Partial<Runtime> | null)?.startLlm !== "function") {
    throw new TypeError(`setDefaultRuntime: runtime must be a Runtime (from createRuntime) or undefined (got ${describeValue(runtime)})`);
  }
  const previous = holder[KEY];
  holder[KEY] = runtime;
  return previous;
}
