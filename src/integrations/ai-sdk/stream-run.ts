/**
 * A `streamText` result (or an agent's `stream()` result) runs while the app reads it, after the
 * function that made it has returned. `observeStreamRun` hands the app the same result through a
 * proxy whose streams report how the run ended: drained, failed or cancelled.
 */

/** The public stream getters of a `streamText` result; the other streams and methods read these. */
const STREAM_GETTERS: ReadonlySet<PropertyKey> = new Set(["textStream", "fullStream", "partialOutputStream", "elementStream"]);

/** Whether `value` is a `streamText` result: read without touching a getter (each starts a stream copy). */
export function isStreamRun(value: unknown): value is object {
  return (
    value !== null &&
    typeof value === "object" &&
    "fullStream" in value &&
    "textStream" in value &&
    typeof (value as { consumeStream?: unknown }).consumeStream === "function"
  );
}

/** The error a cancelled stream ends its scope with. */
export function streamCancelled(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error("stream cancelled");
}

interface Watch {
  /** Streams handed out and still open. */
  open: number;
  settled: boolean;
  done(): void;
  fail(error: unknown): void;
  cancelled(reason: unknown): void;
}

/** A pulled copy of `source` that tells `watch` when it is drained, fails or is cancelled. */
function watched<C>(source: ReadableStream<C>, watch: Watch): ReadableStream<C> {
  const reader = source.getReader();
  let closed = false;
  const close = () => {
    if (closed) return false;
    closed = true;
    watch.open--;
    return true;
  };
  watch.open++;
  const stream = new ReadableStream<C>({
    async pull(controller) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        if (close()) watch.fail(error);
        controller.error(error);
        return;
      }
      if (step.done) {
        if (close()) watch.done();
        controller.close();
        return;
      }
      controller.enqueue(step.value);
    },
    async cancel(reason) {
      if (close()) watch.cancelled(reason);
      await reader.cancel(reason);
    },
  });
  // The SDK's streams are async iterables too; stopping early (`break`) cancels the copy.
  Object.defineProperty(stream, Symbol.asyncIterator, {
    configurable: true,
    value: function (this: ReadableStream<C>): AsyncIterator<C> {
      const it = this.getReader();
      let finished = false;
      const release = async (cancel: boolean, reason?: unknown) => {
        if (finished) return;
        finished = true;
        try {
          if (cancel) await it.cancel(reason);
        } finally {
          it.releaseLock();
        }
      };
      return {
        async next() {
          if (finished) return { done: true, value: undefined };
          const step = await it.read();
          if (step.done) await release(false);
          return step.done ? { done: true, value: undefined } : { done: false, value: step.value };
        },
        async return() {
          await release(true);
          return { done: true, value: undefined };
        },
        async throw(error: unknown) {
          await release(true, error);
          throw error;
        },
      };
    },
  });
  return stream;
}

/**
 * The result, as a proxy whose streams are watched, and a promise of the run's end: it resolves
 * when a stream the app reads is drained and the run finished without error, and rejects when a
 * stream fails, the run finished with an error, or every stream the app opened was cancelled.
 */
export function observeStreamRun<T extends object>(result: T): { result: T; ended: Promise<void> } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const ended = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  const watch: Watch = {
    open: 0,
    settled: false,
    done() {
      if (watch.settled) return;
      watch.settled = true;
      // The run's own verdict: its finish reason settled before the stream closed (a run with no
      // output rejects it). Read on the result itself, so nothing here is watched again.
      Promise.resolve((result as { finishReason?: unknown }).finishReason).then(
        (reason) => (reason === "error" ? reject(new Error("the run finished with an error")) : resolve()),
        reject,
      );
    },
    fail(error) {
      if (watch.settled) return;
      watch.settled = true;
      reject(error);
    },
    cancelled(reason) {
      if (watch.settled || watch.open > 0) return;
      watch.settled = true;
      reject(streamCancelled(reason));
    },
  };
  const proxy = new Proxy(result, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (STREAM_GETTERS.has(key) && value instanceof ReadableStream) return watched(value, watch);
      return value;
    },
  });
  return { result: proxy, ended };
}
