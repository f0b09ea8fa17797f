import type { Runtime } from "../runtime/runtime.js";

/** How long a signal waits for the exporters before the process ends anyway. */
export const SIGNAL_FLUSH_TIMEOUT_MS = 2000;

const SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"];

/** Resolves when `work` settles or after `ms`, whichever comes first; the timer never holds the process. */
function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

/**
 * Flushes `runtime` on SIGTERM and SIGINT. A listener of ours would take away Node's default
 * action (ending the process), so when the app has no listener of its own for the signal, ours
 * shuts the runtime down within the bound and then raises the signal again without itself: the
 * process ends as it would have, with the signal as its cause. When the app listens too, ending the
 * process is the app's business: ours only flushes. A second signal while flushing ends at once.
 */
export function flushOnSignals(runtime: Runtime, timeoutMs = SIGNAL_FLUSH_TIMEOUT_MS): void {
  for (const signal of SIGNALS) {
    let ending = false;
    const listener = (): void => {
      const appListens = process.listeners(signal).some((l) => l !== listener);
      if (appListens) {
        void bounded(runtime.forceFlush(), timeoutMs);
        return;
      }
      const end = (): void => {
        process.removeListener(signal, listener);
        process.kill(process.pid, signal);
      };
      if (ending) return end();
      ending = true;
      void bounded(runtime.shutdown({ timeoutMs }), timeoutMs).then(end);
    };
    process.on(signal, listener);
  }
}
