import { defaultRuntime } from "../runtime/default-runtime.js";
import type { AgentRuntime } from "./runtime-port.js";

/** The process default runtime, used when a client is given none. */
export function defaultAgentRuntime(): AgentRuntime {
  return defaultRuntime();
}
