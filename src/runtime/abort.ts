let never: AbortSignal | undefined;

/**
 * A signal that never aborts, shared so managed calls without a signal allocate nothing; always the
 * same object, so it can be told apart by identity. Made on first use: runtimes such as Cloudflare
 * Workers refuse to create an `AbortController` in a module's top level.
 */
export function neverAborted(): AbortSignal {
  return (never ??= new AbortController().signal);
}

/** Thrown internally when a managed call's signal aborts before its chain settles. */
export const CANCELLED: unique symbol = Symbol("relaytrace.cancelled");

/** Settles with `work`, or rejects with CANCELLED as soon as `signal` aborts. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal === neverAborted()) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(CANCELLED);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(CANCELLED);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
