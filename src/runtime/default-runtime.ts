import { Runtime } from "./runtime.js";

const KEY = Symbol.for("relaytrace.defaultRuntime");
const holder = globalThis as unknown as Record<symbol, Runtime | undefined>;

/** The process-wide runtime used when none is passed; shared by duplicated package copies. */
export function defaultRuntime(): Runtime {
  return (holder[KEY] ??= new Runtime());
}
