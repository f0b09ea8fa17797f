/** What is flushed when the process is about to exit on its own. */
export interface ExitFlushTarget {
  flushOnExit(): Promise<void>;
}

/** What delivers its queued events synchronously when the process exits. */
export interface ExitDrainTarget {
  drainOnExit(): void;
}

/**
 * Weak: a runtime the app has dropped (tests create thousands) is not kept alive by this list,
 * and the entries of collected ones are pruned as the list grows.
 */
class WeakTargets<T extends object> {
  private readonly refs = new Set<WeakRef<T>>();
  private pruneAt = 64;

  add(target: T): () => void {
    const ref = new WeakRef(target);
    this.refs.add(ref);
    if (this.refs.size >= this.pruneAt) {
      for (const entry of this.refs) if (entry.deref() === undefined) this.refs.delete(entry);
      this.pruneAt = Math.max(64, this.refs.size * 2);
    }
    return () => {
      this.refs.delete(ref);
    };
  }

  *live(): Generator<T> {
    for (const ref of this.refs) {
      const target = ref.deref();
      if (target === undefined) this.refs.delete(ref);
      else yield target;
    }
  }
}

const flushTargets = new WeakTargets<ExitFlushTarget>();
const drainTargets = new WeakTargets<ExitDrainTarget>();
let flushInstalled = false;
let drainInstalled = false;

/**
 * Flushes `target` when the event loop runs dry (`beforeExit`), so a program that ends without
 * calling `runtime.shutdown()` still delivers what its exporters hold. The flush's own I/O keeps
 * the process alive until it is done; `beforeExit` then fires again and the target, having
 * nothing new, lets the process exit. Not run on `process.exit()` or a signal (`drainOnExit` covers
 * what is still queued then). Returns the remover.
 */
export function flushOnExit(target: ExitFlushTarget): () => void {
  if (!flushInstalled) {
    flushInstalled = true;
    process.on("beforeExit", () => {
      for (const live of flushTargets.live()) void live.flushOnExit();
    });
  }
  return flushTargets.add(target);
}

/**
 * Delivers what `target` still queues when the process exits (`process.exit()` included, which
 * runs only synchronous `exit` listeners), so the ATOF file sink's own `exit` listener writes
 * those events too. Prepended, so it runs before every `exit` listener registered earlier; one
 * registered later (a sink created afterwards) is appended behind it. Returns the remover.
 */
export function drainOnExit(target: ExitDrainTarget): () => void {
  if (!drainInstalled) {
    drainInstalled = true;
    process.prependListener("exit", () => {
      for (const live of drainTargets.live()) {
        try {
          live.drainOnExit();
        } catch {
          // nothing here may keep the process from exiting
        }
      }
    });
  }
  return drainTargets.add(target);
}
