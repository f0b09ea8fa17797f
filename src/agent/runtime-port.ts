import type { Runtime, ScopeControl } from "../runtime/runtime.js";

/** The runtime the loop drives: the pinned `Runtime` (every intercept and sanitizer applies to the loop's calls). */
export type AgentRuntime = Runtime;
/** The handle `withScope` gives the loop's agent scope (output, uuid). */
export type ScopeControlLike = ScopeControl;
