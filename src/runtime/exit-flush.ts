/** What is flushed when the process is about to exit on its own. */
export interface ExitFlushTarget {
  flushOnExit(): Promise<void>;
}

// Weak: a runtime the app has dropped (tests create thousands) is not kept alive by this list.
const targets = new Set<WeakRef<ExitFlushTarget>>();
let installed = false;

function onBeforeExit(): void {
  for (const ref of targets) {
    const target = ref.deref();
    if (target === undefined) targets.delete(ref);
    else void target.flushOnExit();
  }
}

/**
 * Flushes `target` when the event loop runs dry (`beforeExit`), so a program that ends without
 * calling `runtime.shutdown()` still delivers what its exporters hold. The flush's own I/O keeps
 * the process alive until it is done; `beforeExit` then fires again and the target, having
 * nothing new, lets the process exit. Not run on `process.exit()` or a signal (`drainOnExit` covers
 * what is still queued then). Returns the remover.
 */
export function flushOnExit(target: ExitFlushTarget): () => void {
  const ref = new WeakRef(target);
  targets.add(ref);
  if (!installed) {
    installed = true;
    process.on("beforeExit", onBeforeExit);
  }
  return () => {
    targets.delete(ref);
  };
}

/** What delivers its queued events synchronously when the process exits. */
export interface ExitDrainTarget {
  drainOnExit(): void;
}

const drainTargets = new Set<WeakRef<ExitDrainTarget>>();
let drainInstalled = false;

function onExit(): void {
  for (const ref of drainTargets) {
    try {
      ref.deref()?.drainOnExit();
    } catch {
      // nothing here may keep the process from exiting
    }
  }
}

/**
 * Delivers what `target` still queues when the process exits (`process.exit()` included, which
 * runs only synchronous `exit` listeners), so the ATOF file sink's own `exit` listener writes
 * those events too. Prepended, so it runs before every `exit` listener registered earlier; one
 * registered later (a sink created afterwards) is appended behind it. Returns the remover.
 */
export function drainOnExit(target: ExitDrainTarget): () => void {
  const ref = new WeakRef(target);
  drainTargets.add(ref);
  if (!drainInstalled) {
    drainInstalled = true;
    process.prependListener("exit", onExit);
  }
  return () => {
    drainTargets.delete(ref);
  };
}
