import { lineReceiverOf, type AtofLineReceiver } from "../events/atof-lines.js";
import type { ScopeStack } from "../events/scope-stack.js";
import type { Registry, RegistryEntry } from "./registry.js";
import type { EventNameSanitizer, EventSanitizer, MetadataInjector, Subscriber } from "./types.js";

/** The registrations one event passes through, snapshotted when it is emitted. */
export interface Route {
  injectors: readonly RegistryEntry<MetadataInjector>[];
  sanitizers: readonly RegistryEntry<EventSanitizer>[];
  /** Event-name sanitizers: every event's `name` passes them before anything else sees it. */
  names: readonly RegistryEntry<EventNameSanitizer>[];
  subscribers: readonly RegistryEntry<Subscriber>[];
  /**
   * Each subscriber's line receiver, in subscriber order, when every subscriber has one (every
   * one only writes ATOF lines): the event is then serialized once, on the emitting call.
   */
  lines: readonly AtofLineReceiver[] | undefined;
}

export type RouteKind = "mark" | "start" | "end";

/** The registries a route is built from. */
export interface PublisherRegistries {
  subscribers: Registry<Subscriber>;
  nameSanitizers: Registry<EventNameSanitizer>;
  injectors: Registry<MetadataInjector>;
  markSanitizers: Registry<EventSanitizer>;
  scopeStartSanitizers: Registry<EventSanitizer>;
  scopeEndSanitizers: Registry<EventSanitizer>;
}

/** The routes of one runtime, cached per kind while no registration changes. */
export class RouteTable {
  constructor(private readonly registries: PublisherRegistries) {}

  /**
   * What an event emitted from `stack` will pass through, snapshotted now; undefined when no
   * subscriber is visible, in which case the event need not be built at all. Without scope-local
   * registrations the route is the same from every stack: it is built once per change of the
   * registrations (registries are copy-on-write, so a route keeps the arrays it saw).
   */
  route(stack: ScopeStack, kind: RouteKind): Route | undefined {
    const r = this.registries;
    const sanitizers = kind === "mark" ? r.markSanitizers : kind === "start" ? r.scopeStartSanitizers : r.scopeEndSanitizers;
    if (r.subscribers.hasScopeLocal || r.injectors.hasScopeLocal || r.nameSanitizers.hasScopeLocal || sanitizers.hasScopeLocal) {
      return this.buildRoute(stack, kind);
    }
    // Versions only grow, so their sum changes whenever any of them does.
    const version = r.subscribers.version + r.injectors.version + r.nameSanitizers.version + sanitizers.version;
    const cache = this.routeCache[kind];
    if (cache.version !== version) {
      cache.version = version;
      cache.route = this.buildRoute(stack, kind);
    }
    return cache.route;
  }

  private readonly routeCache: Record<RouteKind, { version: number; route: Route | undefined }> = {
    mark: { version: -1, route: undefined },
    start: { version: -1, route: undefined },
    end: { version: -1, route: undefined },
  };

  private buildRoute(stack: ScopeStack, kind: RouteKind): Route | undefined {
    const subscribers = this.registries.subscribers.effective(stack);
    if (subscribers.length === 0) return undefined;
    const sanitizerRegistry =
      kind === "mark"
        ? this.registries.markSanitizers
        : kind === "start"
          ? this.registries.scopeStartSanitizers
          : this.registries.scopeEndSanitizers;
    let injectors = this.registries.injectors.effective(stack);
    if (injectors.length > 1) {
      injectors = [...injectors].sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return {
      subscribers,
      lines: lineReceivers(subscribers),
      injectors,
      sanitizers: sanitizerRegistry.effective(stack),
      names: this.registries.nameSanitizers.effective(stack),
    };
  }
}

/** Every subscriber's line receiver, or undefined unless each one has one. */
function lineReceivers(subscribers: readonly RegistryEntry<Subscriber>[]): AtofLineReceiver[] | undefined {
  const receivers: AtofLineReceiver[] = [];
  for (const subscriber of subscribers) {
    const receiver = lineReceiverOf(subscriber.callback);
    if (receiver === undefined) return undefined;
    receivers.push(receiver);
  }
  return receivers;
}
