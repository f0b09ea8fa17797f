import type { Json, JsonObject } from "../events/json.js";
import type { Category } from "../events/types.js";
import {
  createScopeStack,
  currentScopeContext,
  hiddenRoot,
  withScopeStack,
  type ScopeHandle,
  type ScopeStack,
} from "../events/scope-stack.js";
import { errorMetadata, okMetadata, shallowMerge } from "../runtime/event-factory.js";
import type { Runtime } from "../runtime/runtime.js";
import type { Timestamp } from "../runtime/types.js";

/**
 * Scopes opened and closed from a library's callbacks rather than around a function: each lives on
 * a stack of its own, so callbacks that arrive in any order, from any async context, never pop
 * each other's scopes. Parents are given explicitly (by uuid); times are the library's own.
 */
export interface DetachedScope {
  readonly handle: ScopeHandle;
  readonly stack: ScopeStack;
}

export interface OpenDetachedOptions {
  category: Category;
  /** The parent scope's uuid; default: the caller's current scope. */
  parentUuid?: string;
  timestamp?: Timestamp;
  input?: Json;
  metadata?: Json;
  categoryProfile?: JsonObject | null;
  attributes?: string[];
}

/** The uuid of the scope the caller is in now (the hidden root outside any scope). */
export function currentScopeUuid(): string {
  return currentScopeContext().stack.top().uuid;
}

export function openDetached(runtime: Runtime, name: string, options: OpenDetachedOptions): DetachedScope {
  // The caller's trace link and run context come along: a scope under a remote parent still
  // continues its trace, and belongs to the caller's session.
  const caller = currentScopeContext().stack;
  const stack = createScopeStack(caller.link, caller.run);
  const { parentUuid, ...rest } = options;
  const parent = hiddenRoot(parentUuid ?? currentScopeUuid());
  // pushScope makes the scope current inside this run only; the stack it left there is the scope's own.
  return withScopeStack(stack, () => {
    const handle = runtime.pushScope(name, { ...rest, parent });
    return { handle, stack: currentScopeContext().stack };
  });
}

export function closeDetached(
  runtime: Runtime,
  scope: DetachedScope,
  options: { output?: Json; metadata?: Json; timestamp?: Timestamp; error?: unknown } = {},
): void {
  const extra = shallowMerge(scope.handle.metadata, options.metadata);
  const metadata = options.error !== undefined ? errorMetadata(extra, options.error) : okMetadata(extra);
  withScopeStack(scope.stack, () =>
    runtime.popScope(scope.handle, {
      metadata,
      ...(options.output !== undefined ? { output: options.output } : {}),
      ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
    }),
  );
}
