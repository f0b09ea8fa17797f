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
 * nothing new, lets the process exit. Not run on `process.exit()` or a signal. Returns the remover.
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
