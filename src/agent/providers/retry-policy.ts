/** Retry timing for provider calls. */

const MAX_RETRY_AFTER_SECONDS = 2_147_483_647;

/** Looks a header up case-insensitively; array values yield their first entry. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * `Retry-After` in ms when its trimmed value is all ASCII digits within 0…2147483647 seconds;
 * otherwise undefined (fractional, signed, HTTP-date, empty and out-of-range values fall back).
 */
export function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^[0-9]+$/.test(trimmed)) return undefined;
  const seconds = Number(trimmed);
  if (!Number.isSafeInteger(seconds) || seconds > MAX_RETRY_AFTER_SECONDS) return undefined;
  return seconds * 1000;
}

/** `retryBaseMs * 2^attempt + randomInt(0..99)` ms; `attempt` is 0-based. */
export function backoffMs(retryBaseMs: number, attempt: number, random: () => number = Math.random): number {
  return retryBaseMs * 2 ** attempt + Math.floor(random() * 100);
}

/** Sleeps `ms`, rejecting with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // setTimeout caps at 2^31-1 ms; longer waits are clamped rather than firing immediately.
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.min(ms, 2_147_483_647),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
