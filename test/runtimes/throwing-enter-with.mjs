// Makes AsyncLocalStorage.enterWith answer as on Cloudflare Workers, where it throws "not
// implemented" and only run() enters a context. Preloaded with `node --import`, or imported by a
// test file (which calls `restoreEnterWith()` when done).
//
// Node 24 builds run() itself on enterWith (its frame-based AsyncLocalStorage enters, runs, and
// enters the caller's store again), so a call made from Node's own code passes: only a call from
// any module's code gets Workers' answer.
import { AsyncLocalStorage } from "node:async_hooks";

const original = AsyncLocalStorage.prototype.enterWith;

AsyncLocalStorage.prototype.enterWith = function enterWith(...args) {
  const caller = new Error().stack.split("\n")[2] ?? "";
  if (/\(node:|at node:|\[native code\]/.test(caller)) return Reflect.apply(original, this, args);
  throw new Error("asyncLocalStorage.enterWith() is not implemented");
};

/** Puts the real enterWith back. */
export function restoreEnterWith() {
  AsyncLocalStorage.prototype.enterWith = original;
}
