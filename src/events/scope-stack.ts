import { AsyncLocalStorage, AsyncResource } from "node:async_hooks";
import type { Json, JsonObject } from "./json.js";
import type { RunContext } from "./run-context.js";
import type { TraceLink } from "./trace-link.js";
import { uuidv7 } from "./uuid.js";

/** A read-only view of an open scope. */
export interface ScopeHandle {
  readonly uuid: string;
  readonly name: string;
  readonly category: string;
  readonly parentUuid: string | null;
  readonly attributes: readonly string[];
  readonly startedAtUs: number;
  readonly metadata: Json;
  readonly categoryProfile: JsonObject | null;
}

/**
 * An ordered list of open scopes. Index 0 is a hidden root that never emits and can never be
 * popped; a top-level user scope is parented to it.
 */
export class ScopeStack {
  private list: ScopeHandle[];
  private linkValue: TraceLink | undefined;
  /** The session, user, tags and metadata of the work on this stack (`withContext`). */
  readonly run: RunContext | undefined;
  // Copy-on-write: a snapshot shares the array until either side pushes or pops, so the
  // snapshot every managed call takes costs nothing unless the callback opens scopes.
  private shared = false;

  constructor(frames?: ScopeHandle[], link?: TraceLink, run?: RunContext) {
    this.list = frames ?? [hiddenRoot(uuidv7())];
    this.linkValue = link;
    this.run = run;
  }

  /** The remote trace this stack's work continues (`withPropagation`, or an active OTel span at its root). */
  get link(): TraceLink | undefined {
    return this.linkValue;
  }

  /** The open scopes, root first. Read-only: change the stack with push and pop. */
  get frames(): readonly ScopeHandle[] {
    return this.list;
  }

  get root(): ScopeHandle {
    return this.list[0]!;
  }

  top(): ScopeHandle {
    return this.list[this.list.length - 1]!;
  }

  push(handle: ScopeHandle): void {
    this.own();
    this.list.push(handle);
  }

  pop(): ScopeHandle | undefined {
    this.own();
    return this.list.pop();
  }

  indexOf(uuid: string): number {
    for (let i = this.list.length - 1; i >= 0; i--) if (this.list[i]!.uuid === uuid) return i;
    return -1;
  }

  /**
   * Takes `other`'s frames and trace link in place (its run context stays): how `pushScope` and
   * `popScope` change the current stack where the async context cannot be replaced.
   */
  replaceWith(other: ScopeStack): void {
    if (other === this) return;
    this.list = other.list;
    this.shared = true;
    other.shared = true;
    this.linkValue = other.linkValue;
  }

  /** An independent copy: same handles and trace link, its own push and pop. */
  snapshot(): ScopeStack {
    return this.linkedCopy(this.link);
  }

  /** An independent copy continuing the remote trace `link` instead (none when undefined). */
  linkedCopy(link: TraceLink | undefined): ScopeStack {
    return this.copy(link, this.run);
  }

  /** An independent copy whose work belongs to `run` instead. */
  runCopy(run: RunContext | undefined): ScopeStack {
    return this.copy(this.link, run);
  }

  private copy(link: TraceLink | undefined, run: RunContext | undefined): ScopeStack {
    const copy = new ScopeStack(this.list, link, run);
    copy.shared = true;
    this.shared = true;
    return copy;
  }

  private own(): void {
    if (this.shared) {
      this.list = this.list.slice();
      this.shared = false;
    }
  }
}

export function hiddenRoot(uuid: string, name = "root", category = "agent", parentUuid: string | null = null): ScopeHandle {
  return Object.freeze({
    uuid,
    name,
    category,
    parentUuid,
    attributes: Object.freeze([]) as readonly string[],
    startedAtUs: 0,
    metadata: null,
    categoryProfile: null,
  });
}

/** What the async context carries: the scope stack (with its trace link) and the managed tool/LLM call running now. */
export interface ScopeContext {
  readonly stack: ScopeStack;
  readonly activeEventUuid?: string;
}

interface SharedState {
  storage: AsyncLocalStorage<ScopeContext>;
  /** The context of work outside any scope, made on first use: its hidden root's uuid is random. */
  defaultContext: ScopeContext | undefined;
}

// Kept under a global symbol so duplicated copies of the package share one context. Nothing random
// is made here: runtimes such as Cloudflare Workers refuse random values in a module's top level.
const KEY = Symbol.for("relaytrace.scopeStack");
const holder = globalThis as unknown as Record<symbol, SharedState | undefined>;
const shared: SharedState = holder[KEY] ?? (holder[KEY] = { storage: new AsyncLocalStorage<ScopeContext>(), defaultContext: undefined });

function defaultContext(): ScopeContext {
  return (shared.defaultContext ??= { stack: new ScopeStack() });
}

export function currentScopeContext(): ScopeContext {
  return shared.storage.getStore() ?? defaultContext();
}

export function currentScopeStack(): ScopeStack {
  return currentScopeContext().stack;
}

// Whether `AsyncLocalStorage.enterWith` works here: Node, Bun and Deno have it; Cloudflare Workers
// has only `run` (its `enterWith` throws "not implemented"). Learnt on first use, so a runtime (or
// a test) without it is seen however the package was loaded.
let enterWithWorks = true;

/**
 * Enters `context` with `enterWith`, if this runtime can. Where it cannot, contexts are entered
 * with `run` alone and `pushScope`/`popScope` change the current context's stack in place
 * (see `enterScopeContext`).
 */
function tryEnter(context: ScopeContext): boolean {
  if (!enterWithWorks) return false;
  try {
    shared.storage.enterWith(context);
    return true;
  } catch {
    enterWithWorks = false;
    return false;
  }
}

// Node 24 keeps async context in immutable frames (AsyncContextFrame, a Map per frame), and its
// `AsyncLocalStorage.run` builds two of them per run: one to enter, and a copy again to restore
// the caller's. An `AsyncResource` restores the exact frame it replaced, so entering inside one
// builds a single frame per run. Node 22 (async hooks by default: no `_propagate` on Node 24's
// frame-based class) keeps `run`, which is cheaper there than creating a resource.
const FRAME_BASED = !("_propagate" in AsyncLocalStorage.prototype);

function enterAndRun<A extends unknown[], T>(context: ScopeContext, fn: (...args: A) => T, args: A): T {
  if (!tryEnter(context)) return shared.storage.run(context, fn, ...args);
  return fn(...args);
}

/** Runs `fn(...args)` with `context` as the current scope context (arguments instead of a closure save an allocation per call). */
export function runInScopeContext<A extends unknown[], T>(context: ScopeContext, fn: (...args: A) => T, ...args: A): T {
  if (FRAME_BASED && enterWithWorks) {
    return new AsyncResource("relaytrace.scope").runInAsyncScope(enterAndRun<A, T>, null, context, fn, args);
  }
  return shared.storage.run(context, fn, ...args);
}

/**
 * Makes `context` the current scope context from here on: for the rest of this synchronous run and
 * everything it awaits or starts (`AsyncLocalStorage.enterWith`). Work running in another async
 * context (a concurrent request) is not affected; inside `runInScopeContext` the change ends with
 * the run.
 *
 * Without `enterWith` (Cloudflare Workers) no new context can be entered from here on, so the
 * current context's stack takes `context`'s frames and trace link in place instead: the change is
 * seen by everything sharing that context, which is the innermost `runInScopeContext` (a
 * `withScope` body, a managed call) or, outside any, all work outside scopes.
 */
export function enterScopeContext(context: ScopeContext): void {
  if (!tryEnter(context)) currentScopeContext().stack.replaceWith(context.stack);
}

/** Runs `fn` with `stack` as the current stack. */
export function withScopeStack<T>(stack: ScopeStack, fn: () => T): T {
  return shared.storage.run({ stack }, fn);
}

/** A new stack (its own hidden root) continuing the remote trace `link` and belonging to `run`, if given. */
export function createScopeStack(link?: TraceLink, run?: RunContext): ScopeStack {
  return new ScopeStack(undefined, link, run);
}
