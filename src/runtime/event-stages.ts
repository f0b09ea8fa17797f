import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import { formatTimestamp } from "../events/timestamp.js";
import type { AtofEvent, DataSchema } from "../events/types.js";
import { CANONICAL_EVENT, EVENT_TIME, type EventTime } from "../events/types.js";
import { TRACE_LINK, type TraceLink } from "../events/trace-link.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import type { Route } from "./event-routes.js";
import { thrownMessage } from "./event-factory.js";
import { deepFreeze, toJsonSafe, type JsonCopyIssues } from "./json-safe.js";
import type { RegistryEntry } from "./registry.js";
import type { EventFields, EventNameSanitizer, EventSanitizer, MetadataInjector } from "./types.js";

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
  /** Set on an event whose parent is the remote parent of the trace it continues (in memory only). */
  [TRACE_LINK]?: TraceLink;
  /** The timestamp's text and the microseconds it was formatted from (in memory only). */
  [EVENT_TIME]?: EventTime;
}

/** Formats the draft's microsecond timestamp as its text, remembering the number for exporters. */
function stampTime(event: DraftEvent, us: number): void {
  const text = formatTimestamp(us);
  event.timestamp = text;
  event[EVENT_TIME] = Object.freeze({ text, us });
}

/** Work done at delivery time on the dispatcher (payload sanitize chains); throwing withholds the event's data. */
export type Transform = (event: DraftEvent) => void;

/** Which payload fields of a draft were frozen as they were copied (the rest is frozen at delivery). */
export const FROZEN_PROFILE = 1;
export const FROZEN_DATA = 2;
export const FROZEN_METADATA = 4;

/** The name an event keeps when a name sanitizer fails (fail closed). */
const REDACTED_NAME = "[redacted]";
const INJECTOR_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** What the stages need of one publication. */
export interface StagedEvent {
  event: DraftEvent;
  route: Route;
  transform: Transform | undefined;
  frozen: number;
}

/** How the stages report to their dispatcher: which callback runs, and a callback that failed. */
export interface StageHooks {
  running(kind: string, name: string): void;
  fail(registry: string, name: string, error: unknown): void;
}

const messageOf = thrownMessage;

/**
 * The stages an event passes between the queue and its subscribers: the payload transform, name
 * sanitizers, metadata injectors (fail open), event sanitizers (fail closed), then freezing. Each
 * stage contains its own callbacks' failures; `shell` is the event delivered when one fails in a
 * way no stage expects.
 */
export class EventStages {
  constructor(
    private readonly diagnostics: DiagnosticCounter,
    private readonly hooks: StageHooks,
  ) {}

  /**
   * Runs the stages up to the subscribers; each stage contains its own callbacks' failures.
   * `freeze` false leaves the event unfrozen, for a caller that serializes it at once and hands
   * it to no subscriber that could keep it.
   */
  prepare(publication: StagedEvent, freeze = true): AtofEvent {
    const event = publication.event;
    const route = publication.route;
    if (publication.transform) {
      try {
        this.hooks.running("a payload sanitizer", "");
        publication.transform(event);
      } catch (error) {
        // The transform is the payload sanitize chain: data it did not finish with is withheld.
        event.data = null;
        this.diagnostics.record("event_transform_failed", `event ${event.name}: data withheld: ${messageOf(error)}`);
      }
    }
    if (route.names.length > 0) this.sanitizeName(route.names, event);
    if (typeof event.timestamp === "number") stampTime(event, event.timestamp);
    for (const injector of route.injectors) this.inject(injector, event);
    // Sanitizers replace all three payload fields with fresh copies.
    let frozen = publication.frozen;
    if (route.sanitizers.length > 0) {
      this.sanitize(route.sanitizers, event);
      frozen = 0;
    }
    (event as { [CANONICAL_EVENT]?: boolean })[CANONICAL_EVENT] = true;
    return freeze ? freezeEvent(event, frozen) : (event as unknown as AtofEvent);
  }

  /**
   * The event as delivered when a stage failed in a way no stage expects: its identity with the
   * payload fields withheld, so the scope still starts and ends for every subscriber.
   */
  shell(event: DraftEvent, error: unknown): AtofEvent {
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
    if (event[TRACE_LINK] !== undefined) shell[TRACE_LINK] = event[TRACE_LINK];
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
        this.hooks.running("event name sanitizer", sanitizer.name);
        name = sanitizer.callback(event.name, Object.freeze({ ...event }) as unknown as AtofEvent);
        if (typeof name !== "string") throw new TypeError("an event name sanitizer must return a string");
      } catch (error) {
        this.hooks.fail("event_name_sanitizer", sanitizer.name, error);
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
      this.hooks.running("metadata injector", injector.name);
      const extra: unknown = injector.callback(event as unknown as AtofEvent);
      if (!isJsonObject(extra)) {
        if (extra != null) this.hooks.fail("metadata_injector", injector.name, new TypeError("injector must return an object"));
        return;
      }
      // Read once, here: a throwing getter or Proxy trap in what it returned fails this injector only.
      entries = Object.entries(extra);
    } catch (error) {
      this.hooks.fail("metadata_injector", injector.name, error);
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
        this.hooks.running("event sanitizer", sanitizer.name);
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
    this.hooks.fail("event_sanitizer", name, error);
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
