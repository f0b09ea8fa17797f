import type { AtofLine } from "../events/atof-lines.js";
import type { AtofEvent } from "../events/types.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { thrownMessage } from "./event-factory.js";
import type { Route } from "./event-routes.js";
import type { RegistryEntry } from "./registry.js";
import type { Subscriber } from "./types.js";

export interface CallbackError {
  registry: string;
  name: string;
  message: string;
}

/**
 * How the publisher calls the app's callbacks: each failure is that callback's own (a diagnostic
 * and `lastError`, never a throw into the dispatcher), a subscriber's promise is tracked until it
 * settles, and the callback running now is noted for the diagnostic of a cut-off chain.
 */
export class SubscriberCalls {
  private readonly pending = new Set<Promise<unknown>>();
  /** The callback running now (two assignments: no string is built unless a chain is cut). */
  runningKind = "";
  runningName = "";
  lastError: CallbackError | undefined;

  constructor(private readonly diagnostics: DiagnosticCounter) {}

  running(kind: string, name: string): void {
    this.runningKind = kind;
    this.runningName = name;
  }

  /** Resolves once every subscriber promise started so far has settled. */
  async settled(): Promise<void> {
    if (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Hands a line to each subscriber's line receiver, in order. */
  notifyLine(route: Route, line: AtofLine, event: AtofEvent): void {
    const receivers = route.lines!;
    for (let i = 0; i < receivers.length; i++) {
      const name = route.subscribers[i]!.name;
      try {
        this.running("subscriber", name);
        receivers[i]!(line, event);
      } catch (error) {
        this.fail("subscriber", name, error);
      }
    }
  }

  notify(subscriber: RegistryEntry<Subscriber>, event: AtofEvent): void {
    try {
      this.running("subscriber", subscriber.name);
      const result: unknown = subscriber.callback(event);
      // A thenable whose `then` throws (or a Proxy) fails this subscriber only.
      if (result && typeof (result as Promise<unknown>).then === "function") {
        const tracked = Promise.resolve(result).then(
          () => undefined,
          (error: unknown) => this.fail("subscriber", subscriber.name, error),
        );
        this.pending.add(tracked);
        void tracked.finally(() => this.pending.delete(tracked));
      }
    } catch (error) {
      this.fail("subscriber", subscriber.name, error);
    }
  }

  fail(registry: string, name: string, error: unknown): void {
    const message = thrownMessage(error);
    this.lastError = { registry, name, message };
    this.diagnostics.record(`${registry}_failed`, `${registry} ${name}: ${message}`);
  }
}
