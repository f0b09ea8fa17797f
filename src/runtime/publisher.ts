import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeStack } from "../events/scope-stack.js";
import { formatTimestamp } from "../events/timestamp.js";
import type { AtofEvent, DataSchema } from "../events/types.js";
import { CANONICAL_EVENT } from "../events/types.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { deepFreeze, toJsonSafe } from "./json-safe.js";
import type { Registry, RegistryEntry } from "./registry.js";
import type { EventFields, EventNameSanitizer, EventSanitizer, MetadataInjector, Subscriber } from "./types.js";

/** An event under construction. Payloads are already our own copies; `timestamp` is µs until delivery. */
export interface DraftEvent {
  kind: "scope" | "mark";
  scope_category?: "start" | "end";
  atof_version: string;
  uuid: string;
  parent_uuid: string | null;
  timestamp: number | string;
  name: string;
  attributes?: string[];
  category: string | null;
  category_profile: JsonObject | null;
  data: Json;
  data_schema: DataSchema | null;
  metadata: Json;
}

/** Work done at delivery time on the dispatcher (payload sanitize chains); throwing drops the event. */
export type Transform = (event: DraftEvent) => void;

/** The registrations one event passes through, snapshotted when it is emitted. */
export interface Route {
  injectors: readonly RegistryEntry<MetadataInjector>[];
  sanitizers: readonly RegistryEntry<EventSanitizer>[];
  /** Event-name sanitizers: every event's `name` passes them before anything else sees it. */
  names: readonly RegistryEntry<EventNameSanitizer>[];
  subscribers: readonly RegistryEntry<Subscriber>[];
}

/** Which payload fields of a draft were frozen as they were copied (the rest is frozen at delivery). */
export const FROZEN_PROFILE = 1;
export const FROZEN_DATA = 2;
export const FROZEN_METADATA = 4;

interface Publication {
  event: DraftEvent;
  route: Route;
  transform: Transform | undefined;
  frozen: number;
}

type RouteKind = "mark" | "start" | "end";

export interface PublisherRegistries {
  subscribers: Registry<Subscriber>;
  nameSanitizers: Registry<EventNameSanitizer>;
  injectors: Registry<MetadataInjector>;
  markSanitizers: Registry<EventSanitizer>;
  scopeStartSanitizers: Registry<EventSanitizer>;
  scopeEndSanitizers: Registry<EventSanitizer>;
}

export interface CallbackError {
  registry: string;
  name: string;
  message: string;
}

/** Pending publications past which delivery moves from the check phase to the microtask queue. */
const EAGER_DRAIN_BACKLOG = 256;
/** The name an event keeps when a name sanitizer fails (fail closed). */
const REDACTED_NAME = "[redacted]";

const INJECTOR_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One FIFO queue per runtime. Emission snapshots the event and the registrations visible at that
 * moment; delivery runs later, one publication at a time: transform → metadata injectors (fail
 * open) → event sanitizers (fail closed) → subscribers (isolated). Events emitted from inside a
 * callback queue behind the current one and are never delivered re-entrantly.
 */
export class Publisher {
  private queue: (Publication | undefined)[] = [];
  private head = 0;
  private scheduled = false;
  private eagerScheduled = false;
  private readonly drainTask = (): void => {
    this.scheduled = false;
    this.drain();
  };
  private readonly eagerDrainTask = (): void => {
    this.eagerScheduled = false;
    this.drain();
  };
  private draining = false;
  private enqueued = 0;
  private delivered = 0;
  private waiters: { target: number; resolve: () => void }[] = [];
  private readonly pendingPromises = new Set<Promise<unknown>>();
  /** Depth of dispatcher callbacks running now; barriers refuse to run inside one. */
  callbackDepth = 0;
  lastCallbackError: CallbackError | undefined;

  constructor(
    private readonly registries: PublisherRegistries,
    private readonly diagnostics: DiagnosticCounter,
    private readonly maxQueueSize: number,
  ) {}

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
      injectors,
      sanitizers: sanitizerRegistry.effective(stack),
      names: this.registries.nameSanitizers.effective(stack),
    };
  }

  /** Queues `event`; `frozen` says which payload fields were frozen as they were copied. */
  publish(event: DraftEvent, route: Route, transform: Transform | undefined, frozen: number): void {
    if (this.queue.length - this.head >= this.maxQueueSize) {
      this.diagnostics.record("queue_overflow", `event queue full (${this.maxQueueSize}); event ${event.name} dropped`);
      return;
    }
    this.queue.push({ event, route, transform, frozen });
    this.enqueued++;
    if (this.draining) return; // the running drain picks it up
    const backlog = this.queue.length - this.head;
    if (!this.scheduled) {
      // Deliver after the app's pending I/O callbacks, so exporter work overlaps with waiting on
      // the network instead of delaying the request that is about to be written.
      this.scheduled = true;
      setImmediate(this.drainTask);
    } else if (backlog >= EAGER_DRAIN_BACKLOG && !this.eagerScheduled) {
      // An app that never yields to I/O (a tight loop of tool calls) would fill the queue before
      // the check phase comes: drain on the microtask queue instead, which such loops do run.
      this.eagerScheduled = true;
      queueMicrotask(this.eagerDrainTask);
    }
  }

  /** How many events were enqueued so far (a watermark for "anything new since"). */
  get emittedCount(): number {
    return this.enqueued;
  }

  /** Resolves once everything enqueued before the call is delivered and its subscriber promises settled. */
  async flush(): Promise<void> {
    const target = this.enqueued;
    if (this.delivered < target) {
      await new Promise<void>((resolve) => this.waiters.push({ target, resolve }));
    }
    if (this.pendingPromises.size > 0) await Promise.allSettled([...this.pendingPromises]);
  }

  /**
   * Delivers everything queued, now: the process is exiting. Called from inside a subscriber
   * (one that called `process.exit()`) it delivers the rest too: that outer drain never resumes.
   */
  drainOnExit(): void {
    this.draining = false;
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.head < this.queue.length) {
        const publication = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        try {
          this.deliver(publication);
        } catch (error) {
          this.diagnostics.record("event_transform_failed", `event ${publication.event.name} dropped: ${messageOf(error)}`);
        }
        this.delivered++;
        if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
      }
      this.queue = [];
      this.head = 0;
    } finally {
      this.draining = false;
    }
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.target <= this.delivered);
      this.waiters = this.waiters.filter((w) => w.target > this.delivered);
      for (const w of ready) w.resolve();
    }
  }

  private deliver(publication: Publication): void {
    const event = publication.event;
    const route = publication.route;
    this.callbackDepth++;
    try {
      if (publication.transform) {
        try {
          publication.transform(event);
        } catch (error) {
          this.diagnostics.record("event_transform_failed", `event ${event.name} dropped: ${messageOf(error)}`);
          return;
        }
      }
      if (route.names.length > 0) this.sanitizeName(route.names, event);
      if (typeof event.timestamp === "number") event.timestamp = formatTimestamp(event.timestamp);
      for (const injector of route.injectors) this.inject(injector, event);
      // Sanitizers replace all three payload fields with fresh copies.
      let frozen = publication.frozen;
      if (route.sanitizers.length > 0) {
        this.sanitize(route.sanitizers, event);
        frozen = 0;
      }
      (event as { [CANONICAL_EVENT]?: boolean })[CANONICAL_EVENT] = true;
      const delivered = freezeEvent(event, frozen);
      for (const subscriber of route.subscribers) this.notify(subscriber, delivered);
    } finally {
      this.callbackDepth--;
    }
  }

  /**
   * Names can carry what the model chose (an undeclared tool name, say), so they pass their own
   * sanitizers, in order, before injectors, event sanitizers and subscribers see the event. A
   * failing one, or one that returns no string, fails closed: the name becomes `[redacted]`.
   */
  private sanitizeName(sanitizers: readonly RegistryEntry<EventNameSanitizer>[], event: DraftEvent): void {
    for (const sanitizer of sanitizers) {
      let name: unknown;
      try {
        name = sanitizer.callback(event.name, Object.freeze({ ...event }) as unknown as AtofEvent);
        if (typeof name !== "string") throw new TypeError("an event name sanitizer must return a string");
      } catch (error) {
        this.fail("event_name_sanitizer", sanitizer.name, error);
        event.name = REDACTED_NAME;
        return;
      }
      event.name = name;
    }
  }

  private inject(injector: RegistryEntry<MetadataInjector>, event: DraftEvent): void {
    if (event.metadata !== null && !isJsonObject(event.metadata)) return;
    let extra: unknown;
    try {
      extra = injector.callback(event as unknown as AtofEvent);
    } catch (error) {
      this.fail("metadata_injector", injector.name, error);
      return;
    }
    if (!isJsonObject(extra)) {
      if (extra != null) this.fail("metadata_injector", injector.name, new TypeError("injector must return an object"));
      return;
    }
    for (const [key, value] of Object.entries(extra)) {
      if (!INJECTOR_KEY.test(key) || !isInjectableValue(value)) {
        this.diagnostics.record("metadata_injector_value_rejected", `${injector.name}: key ${key} or its value is not allowed`);
        continue;
      }
      const metadata = (event.metadata ??= {}) as JsonObject;
      if (!(key in metadata)) metadata[key] = Array.isArray(value) ? [...value] : value;
    }
  }

  private sanitize(sanitizers: readonly RegistryEntry<EventSanitizer>[], event: DraftEvent): void {
    const view = Object.freeze({ ...event }) as unknown as AtofEvent;
    for (const sanitizer of sanitizers) {
      const fields: EventFields = { data: event.data, categoryProfile: event.category_profile, metadata: event.metadata };
      let replaced: unknown;
      try {
        replaced = sanitizer.callback(view, fields);
      } catch (error) {
        this.failClosed(sanitizer.name, event, error);
        return;
      }
      const problem = invalidFields(replaced);
      if (problem) {
        this.failClosed(sanitizer.name, event, new TypeError(problem));
        return;
      }
      const next = replaced as Partial<EventFields>;
      event.data = "data" in next ? toJsonSafe(next.data) : null;
      event.category_profile = "categoryProfile" in next ? (toJsonSafe(next.categoryProfile) as JsonObject | null) : null;
      event.metadata = "metadata" in next ? toJsonSafe(next.metadata) : null;
    }
  }

  private failClosed(name: string, event: DraftEvent, error: unknown): void {
    // Drop, never leak: the payload fields go, the event shell is still delivered.
    event.data = null;
    event.category_profile = null;
    event.metadata = null;
    this.fail("event_sanitizer", name, error);
  }

  private notify(subscriber: RegistryEntry<Subscriber>, event: AtofEvent): void {
    let result: unknown;
    try {
      result = subscriber.callback(event);
    } catch (error) {
      this.fail("subscriber", subscriber.name, error);
      return;
    }
    if (result && typeof (result as Promise<unknown>).then === "function") {
      const tracked = (result as Promise<unknown>).then(
        () => undefined,
        (error: unknown) => this.fail("subscriber", subscriber.name, error),
      );
      this.pendingPromises.add(tracked);
      void tracked.finally(() => this.pendingPromises.delete(tracked));
    }
  }

  fail(registry: string, name: string, error: unknown): void {
    const message = messageOf(error);
    this.lastCallbackError = { registry, name, message };
    this.diagnostics.record(`${registry}_failed`, `${registry} ${name}: ${message}`);
  }
}

/** Freezes the event and whatever of its payload is not frozen yet, so no subscriber can change what the next one sees. */
function freezeEvent(event: DraftEvent, frozen: number): AtofEvent {
  if ((frozen & FROZEN_PROFILE) === 0) deepFreeze(event.category_profile);
  if ((frozen & FROZEN_DATA) === 0) deepFreeze(event.data);
  if ((frozen & FROZEN_METADATA) === 0) deepFreeze(event.metadata);
  if (event.attributes !== undefined) deepFreeze(event.attributes);
  if (event.data_schema !== null) deepFreeze(event.data_schema);
  return Object.freeze(event) as unknown as AtofEvent;
}

function isInjectableValue(value: unknown): boolean {
  const scalar = (v: unknown) => typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
  if (scalar(value)) return true;
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  const type = typeof value[0];
  return value.every((v) => scalar(v) && typeof v === type);
}

function invalidFields(value: unknown): string | undefined {
  if (!isJsonObject(value as Json)) return "sanitizer must return an object with data, categoryProfile or metadata";
  const v = value as Record<string, unknown>;
  if (!("data" in v) && !("categoryProfile" in v) && !("metadata" in v)) {
    return "sanitizer returned none of data, categoryProfile, metadata";
  }
  if ("categoryProfile" in v && v.categoryProfile !== null && v.categoryProfile !== undefined && !isJsonObject(v.categoryProfile as Json)) {
    return "categoryProfile must be an object or null";
  }
  return undefined;
}
