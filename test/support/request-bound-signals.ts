import { AsyncLocalStorage } from "node:async_hooks";

/** What workerd throws when a request's handler reads another request's AbortSignal. */
export const CROSS_REQUEST_MESSAGE = "Cannot perform I/O on behalf of a different request (I/O type: RefcountedCanceler)";

export interface RequestBoundSignals {
  inRequest<T>(id: number, fn: () => T): T;
  uninstall(): void;
}

const GUARDED_GETTERS = ["aborted", "reason"] as const;
const GUARDED_METHODS = ["addEventListener", "removeEventListener", "throwIfAborted"] as const;

/**
 * Cloudflare Workers' rule for AbortSignals, on Node: a signal belongs to the request whose
 * handler made it, and reading it (`aborted`, `reason`, listeners) from another request's handler
 * throws workerd's error. Requests are async contexts here: `inRequest(id, fn)` runs `fn` as
 * request `id`. A signal made outside any request is not bound (Workers refuses to make one there).
 * Only `AbortController` is bound; `uninstall()` puts the globals back.
 */
export function installRequestBoundSignals(): RequestBoundSignals {
  const requests = new AsyncLocalStorage<number>();
  const owners = new WeakMap<AbortSignal, number>();
  const Original = globalThis.AbortController;
  const proto = AbortSignal.prototype as unknown as Record<string, unknown>;
  const saved = new Map<string, PropertyDescriptor | undefined>();

  const check = (signal: AbortSignal): void => {
    const owner = owners.get(signal);
    if (owner !== undefined && owner !== requests.getStore()) throw new Error(CROSS_REQUEST_MESSAGE);
  };

  class RequestBoundController extends Original {
    constructor() {
      super();
      const request = requests.getStore();
      if (request !== undefined) owners.set(this.signal, request);
    }
  }
  globalThis.AbortController = RequestBoundController;

  for (const name of GUARDED_GETTERS) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    saved.set(name, descriptor);
    const get = descriptor.get!;
    Object.defineProperty(proto, name, {
      ...descriptor,
      get(this: AbortSignal) {
        check(this);
        return get.call(this) as unknown;
      },
    });
  }
  for (const name of GUARDED_METHODS) {
    saved.set(name, Object.getOwnPropertyDescriptor(proto, name));
    const method = (proto[name] ?? (EventTarget.prototype as unknown as Record<string, unknown>)[name]) as (...args: unknown[]) => unknown;
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      value(this: AbortSignal, ...args: unknown[]) {
        check(this);
        return method.apply(this, args);
      },
    });
  }

  return {
    inRequest: (id, fn) => requests.run(id, fn),
    uninstall() {
      globalThis.AbortController = Original;
      for (const [name, descriptor] of saved) {
        if (descriptor === undefined) delete proto[name];
        else Object.defineProperty(proto, name, descriptor);
      }
    },
  };
}
