/** Thrown internally when a managed call's signal aborts before its chain settles. */
export const CANCELLED: unique symbol = Symbol("relaytrace.cancelled");

/**
 * The signal a tool or LLM function is handed: the caller's, else a new one that never aborts.
 * Never one shared signal: Cloudflare Workers ties every AbortSignal to the request that made it
 * and refuses to read it from another ("Cannot perform I/O on behalf of a different request"), so
 * a signal kept across calls would break every request after the one that made it.
 */
export function signalForCall(given: AbortSignal | undefined): AbortSignal {
  return given ?? new AbortController().signal;
}

/** Settles with `work`, or rejects with CANCELLED as soon as `signal` aborts; no signal, nothing to race. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
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
