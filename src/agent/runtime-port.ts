import type { Runtime, ScopeControl } from "../runtime/runtime.js";

/** The runtime the loop drives: the pinned `Runtime` (every intercept and sanitizer applies to the loop's calls). */
export type AgentRuntime = Runtime;
export type ScopeControlLike = ScopeControl;
