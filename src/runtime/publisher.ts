import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { ScopeStack } from "../events/scope-stack.js";
import { formatTimestamp } from "../events/timestamp.js";
import type { AtofEvent, DataSchema } from "../events/types.js";
import { CANONICAL_EVENT } from "../events/types.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { deepFreeze, toJsonSafe, type JsonCopyIssues } from "./json-safe.js";
import { thrownMessage } from "./event-factory.js";
import { RouteTable, type PublisherRegistries, type Route, type RouteKind } from "./event-routes.js";
import type { RegistryEntry } from "./registry.js";
import type { EventFields, EventNameSanitizer, EventSanitizer, MetadataInjector, Subscriber } from "./types.js";

export type { PublisherRegistries, Route, RouteKind };

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

/** Work done at delivery time on the dispatcher (payload sanitize chains); throwing withholds the event's data. */
export type Transform = (event: DraftEvent) => void;

/** Which payload fields of a draft were frozen as they were copied (the rest is frozen at delivery). */
export const FROZEN_PROFILE = 1;
export const FROZEN_DATA = 2;
export const FROZEN_METADATA = 4;

interface Publication {
  event: DraftEvent;
  route: Route;
  transform: Transform | undefined;
  frozen: number;
  /** 0 for an event the app emitted; n for one a callback emitted while delivering an event of depth n - 1. */
  depth: number;
  /** What events emitted from callbacks while delivering this one (and their own) share; made on first use. */
  lineage: Lineage | undefined;
}

/** The events that descend from one app event through callbacks that emit (a subscriber that marks). */
interface Lineage {
  emitted: number;
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
/**
 * How deep events emitted from inside callbacks (subscribers, injectors, sanitizers) may chain:
 * an event a subscriber emits for an app event has depth 1, one emitted for that one depth 2.
 */
export const MAX_REENTRANT_DEPTH = 8;
/** How many events may descend from one app event through callbacks that emit, over all depths. */
export const MAX_REENTRANT_EVENTS = 256;

const INJECTOR_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

const messageOf = thrownMessage;

/**
 * One FIFO queue per runtime. Emission snapshots the event and the registrations visible at that
 * moment; delivery runs later, one publication at a time: transform → metadata injectors (fail
 * open) → event sanitizers (fail closed) → subscribers (isolated). Events emitted from inside a
 * callback queue behind the current one and are never delivered re-entrantly; their chains are
 * bounded (MAX_REENTRANT_DEPTH, MAX_REENTRANT_EVENTS) so that a subscriber that emits for every
 * event it receives cannot keep the dispatcher busy forever. No failure of a stage drops an
 * event: what cannot be delivered safely is withheld and the event shell is still delivered.
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
  /** The publication being delivered now (events emitted meanwhile descend from it). */
  private delivering: Publication | undefined;
  /** The callback running now, named in the diagnostic of a cut-off chain. */
  private runningKind = "";
  private runningName = "";
  private reportingCut = false;
  lastCallbackError: CallbackError | undefined;

  private readonly routes: RouteTable;

  constructor(
    registries: PublisherRegistries,
    private readonly diagnostics: DiagnosticCounter,
    private readonly maxQueueSize: number,
  ) {
    this.routes = new RouteTable(registries);
  }

  /** What an event emitted from `stack` will pass through, snapshotted now (see RouteTable); undefined when nothing listens. */
  route(stack: ScopeStack, kind: RouteKind): Route | undefined {
    return this.routes.route(stack, kind);
  }

  /** Queues `event`; `frozen` says which payload fields were frozen as they were copied. */
  publish(event: DraftEvent, route: Route, transform: Transform | undefined, frozen: number): void {
    if (this.queue.length - this.head >= this.maxQueueSize) {
      this.diagnostics.record("queue_overflow", `event queue full (${this.maxQueueSize}); event ${event.name} dropped`);
      return;
    }
    let depth = 0;
    let lineage: Lineage | undefined;
    const parent = this.callbackDepth > 0 ? this.delivering : undefined;
    if (parent !== undefined) {
      depth = parent.depth + 1;
      lineage = parent.lineage ??= { emitted: 0 };
      if (depth > MAX_REENTRANT_DEPTH || lineage.emitted >= MAX_REENTRANT_EVENTS) {
        this.cutReentrant(event.name, depth);
        return;
      }
      lineage.emitted++;
    }
    this.queue.push({ event, route, transform, frozen, depth, lineage });
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

  private cutReentrant(name: string, depth: number): void {
    // A diagnostic listener that emits would be cut in turn, and report that, without end.
    if (this.reportingCut) return;
    const why =
      depth > MAX_REENTRANT_DEPTH
        ? `chain of events emitted from callbacks deeper than ${MAX_REENTRANT_DEPTH}`
        : `more than ${MAX_REENTRANT_EVENTS} events emitted from callbacks for one event`;
    const where = this.runningKind === "" ? "a callback" : `${this.runningKind} ${this.runningName}`.trim();
    this.reportingCut = true;
    try {
      this.diagnostics.record(
        "reentrant_emission_cut",
        `event ${name} emitted from inside ${where} dropped: ${why} (a callback that emits for every event it receives)`,
      );
    } finally {
      this.reportingCut = false;
    }
  }

  /** Notes which callback runs now (two assignments: no string is built unless a chain is cut). */
  private running(kind: string, name: string): void {
    this.runningKind = kind;
    this.runningName = name;
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
          this.diagnostics.record("event_delivery_failed", `event ${String(publication.event.name)}: ${messageOf(error)}`);
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
    const outer = this.delivering;
    this.delivering = publication;
    this.callbackDepth++;
    try {
      let delivered: AtofEvent;
      try {
        delivered = this.prepare(publication);
      } catch (error) {
        delivered = this.shell(publication.event, error);
      }
      for (const subscriber of publication.route.subscribers) this.notify(subscriber, delivered);
    } finally {
      this.callbackDepth--;
      this.delivering = outer;
    }
  }

  /** Runs the stages up to the subscribers; each stage contains its own callbacks' failures. */
  private prepare(publication: Publication): AtofEvent {
    const event = publication.event;
    const route = publication.route;
    if (publication.transform) {
      try {
        this.running("a payload sanitizer", "");
        publication.transform(event);
      } catch (error) {
        // The transform is the payload sanitize chain: data it did not finish with is withheld.
        event.data = null;
        this.diagnostics.record("event_transform_failed", `event ${event.name}: data withheld: ${messageOf(error)}`);
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
    return freezeEvent(event, frozen);
  }

  /**
   * The event as delivered when a stage failed in a way no stage expects: its identity with the
   * payload fields withheld, so the scope still starts and ends for every subscriber.
   */
  private shell(event: DraftEvent, error: unknown): AtofEvent {
    this.diagnostics.record("event_transform_failed", `event ${String(event.name)}: content withheld: ${messageOf(error)}`);
    let timestamp = event.timestamp;
    try {
      if (typeof timestamp === "number") timestamp = formatTimestamp(timestamp);
    } catch {
      timestamp = formatTimestamp(0);
    }
    const shell: DraftEvent = {
      kind: event.kind,
      atof_version: event.atof_version,
      uuid: event.uuid,
      parent_uuid: event.parent_uuid,
      timestamp,
      name: typeof event.name === "string" ? event.name : REDACTED_NAME,
      category: event.category,
      category_profile: null,
      data: null,
      data_schema: null,
      metadata: null,
    };
    if (event.scope_category !== undefined) shell.scope_category = event.scope_category;
    if (event.attributes !== undefined) shell.attributes = [...event.attributes];
    (shell as { [CANONICAL_EVENT]?: boolean })[CANONICAL_EVENT] = true;
    return freezeEvent(shell, 0);
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
        this.running("event name sanitizer", sanitizer.name);
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
    let entries: [string, unknown][];
    try {
      this.running("metadata injector", injector.name);
      const extra: unknown = injector.callback(event as unknown as AtofEvent);
      if (!isJsonObject(extra)) {
        if (extra != null) this.fail("metadata_injector", injector.name, new TypeError("injector must return an object"));
        return;
      }
      // Read once, here: a throwing getter or Proxy trap in what it returned fails this injector only.
      entries = Object.entries(extra);
    } catch (error) {
      this.fail("metadata_injector", injector.name, error);
      return;
    }
    for (const [key, value] of entries) {
      if (!INJECTOR_KEY.test(key) || key === "__proto__" || !isInjectableValue(value)) {
        this.diagnostics.record("metadata_injector_value_rejected", `${injector.name}: key ${key} or its value is not allowed`);
        continue;
      }
      const metadata = (event.metadata ??= {}) as JsonObject;
      // Own keys only: an inherited name (`constructor`, `toString`) is not a key the event has.
      if (!Object.hasOwn(metadata, key)) metadata[key] = Array.isArray(value) ? [...(value as Json[])] : value;
    }
  }

  private sanitize(sanitizers: readonly RegistryEntry<EventSanitizer>[], event: DraftEvent): void {
    const view = Object.freeze({ ...event }) as unknown as AtofEvent;
    for (const sanitizer of sanitizers) {
      const fields: EventFields = { data: event.data, categoryProfile: event.category_profile, metadata: event.metadata };
      const issues: JsonCopyIssues = { count: 0 };
      let data: Json;
      let profile: JsonObject | null;
      let metadata: Json;
      try {
        this.running("event sanitizer", sanitizer.name);
        const replaced: unknown = sanitizer.callback(view, fields);
        // What it returned is read once, inside this guard: a throwing getter or a Proxy trap
        // fails this sanitizer closed, never the event.
        const problem = invalidFields(replaced);
        if (problem) throw new TypeError(problem);
        const next = replaced as Partial<EventFields>;
        data = "data" in next ? toJsonSafe(next.data, issues) : null;
        const nextProfile = "categoryProfile" in next ? toJsonSafe(next.categoryProfile, issues) : null;
        if (nextProfile !== null && !isJsonObject(nextProfile)) throw new TypeError("categoryProfile must be an object or null");
        profile = nextProfile;
        metadata = "metadata" in next ? toJsonSafe(next.metadata, issues) : null;
      } catch (error) {
        this.failClosed(sanitizer.name, event, error);
        return;
      }
      if (issues.count > 0) {
        this.diagnostics.record(
          "payload_not_json",
          `event sanitizer ${sanitizer.name}: ${issues.count} value(s) were not JSON (first: ${issues.first}); replaced`,
        );
      }
      event.data = data;
      event.category_profile = profile;
      event.metadata = metadata;
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
    try {
      this.running("subscriber", subscriber.name);
      const result: unknown = subscriber.callback(event);
      // A thenable whose `then` throws (or a Proxy) fails this subscriber only.
      if (result && typeof (result as Promise<unknown>).then === "function") {
        const tracked = Promise.resolve(result).then(
          () => undefined,
          (error: unknown) => this.fail("subscriber", subscriber.name, error),
        );
        this.pendingPromises.add(tracked);
        void tracked.finally(() => this.pendingPromises.delete(tracked));
      }
    } catch (error) {
      this.fail("subscriber", subscriber.name, error);
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

function isInjectableValue(value: unknown): value is Json {
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
