import { declareOptions, is, type OptionCheck, type OptionsDeclaration, type OptionsSpec } from "../events/option-spec.js";
import { defaultRuntime } from "../runtime/default-runtime.js";
import type { Runtime } from "../runtime/runtime.js";

/** The options every adapter takes: the runtime to feed (default: the process-wide one). */
export interface AdapterOptions {
  runtime?: Runtime;
}

/** The `runtime` option: anything with the Runtime's methods (a second copy of relaytrace's Runtime included). */
const RUNTIME_OPTION: OptionCheck = is.objectWith("a Runtime (from createRuntime())", "executeTool");

/**
 * Declares an adapter's options: `runtime` plus its own keys, checked like the runtime's options
 * (an unknown key or a wrong value is a TypeError naming it, what it must be and what it got).
 */
export function declareAdapterOptions<T extends AdapterOptions>(
  owner: string,
  spec: Omit<OptionsSpec<T>, "runtime">,
): OptionsDeclaration<T> {
  return declareOptions<T>(owner, { runtime: RUNTIME_OPTION, ...spec } as OptionsSpec<T>);
}

export function runtimeOf(options: AdapterOptions | undefined): Runtime {
  return options?.runtime ?? defaultRuntime();
}
