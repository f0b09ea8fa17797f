/** The key under which a scope handle keeps the uuid of its trace's root (a symbol: JSON never sees it). */
export const TRACE_ROOT: unique symbol = Symbol("relaytrace.traceRoot");
