// Hand-built ATOF events for the OTel tests (the worked example of otel-projections.md §6).
import type { Json, JsonObject } from "../../src/events/json.js";
import type { MarkEvent, ScopeEvent } from "../../src/events/types.js";

export const HIDDEN_ROOT = "019ca945-0a00-752e-89a7-834df2a74de4";
export const A = "019ca945-0a01-7651-8317-1ff4a6a3a450";
export const T = "019ca945-0b9c-7128-a24b-e40ad23f0824";
export const M1 = "019ca945-0dd1-70ed-a079-d3bde8e25d94";
export const M2 = "019ca945-0dd1-70ee-b768-525373cf256d";

export const TRACE_ID = "019ca9450a01765183171ff4a6a3a450";
export const SPAN_A = "83171ff4a6a3a450";
export const SPAN_T = "a24be40ad23f0824";
export const SPAN_M1 = "a079d3bde8e25d94";
export const SPAN_M2 = "b768525373cf256d";

export function ts(seconds: string): string {
  return `2026-03-01T12:00:0${seconds}Z`;
}

interface ScopeInit {
  uuid: string;
  parent?: string | null;
  name: string;
  category?: string;
  at: string;
  data?: Json;
  metadata?: Json;
  profile?: JsonObject | null;
  attributes?: string[];
}

export function start(init: ScopeInit): ScopeEvent {
  return scope("start", init);
}

export function end(init: ScopeInit): ScopeEvent {
  return scope("end", init);
}

function scope(phase: "start" | "end", init: ScopeInit): ScopeEvent {
  return {
    kind: "scope",
    scope_category: phase,
    atof_version: "0.1",
    uuid: init.uuid,
    parent_uuid: init.parent ?? null,
    timestamp: init.at,
    name: init.name,
    attributes: init.attributes ?? [],
    category: init.category ?? "function",
    category_profile: init.profile ?? null,
    data: init.data ?? null,
    data_schema: null,
    metadata: init.metadata ?? null,
  };
}

export function mark(init: {
  uuid: string;
  parent: string | null;
  name: string;
  at: string;
  data?: Json;
  metadata?: Json;
  category?: string | null;
  profile?: JsonObject | null;
  schema?: { name: string; version: string } | null;
}): MarkEvent {
  return {
    kind: "mark",
    atof_version: "0.1",
    uuid: init.uuid,
    parent_uuid: init.parent,
    timestamp: init.at,
    name: init.name,
    category: init.category ?? null,
    category_profile: init.profile ?? null,
    data: init.data ?? null,
    data_schema: init.schema ?? null,
    metadata: init.metadata ?? null,
  };
}

/** The six events of §6, in delivery order. */
export function workedExample(): Array<ScopeEvent | MarkEvent> {
  return [
    start({
      uuid: A,
      parent: HIDDEN_ROOT,
      name: "weather-agent",
      category: "agent",
      at: ts("0.001000"),
      data: { prompt: "Weather in Oslo?" },
      metadata: { session_id: "conv-42" },
    }),
    start({
      uuid: T,
      parent: A,
      name: "get_weather",
      category: "tool",
      at: ts("0.412000"),
      data: { city: "Oslo" },
      profile: { tool_call_id: "call_9f2" },
    }),
    end({
      uuid: T,
      parent: A,
      name: "get_weather",
      category: "tool",
      at: ts("0.977311"),
      data: { temp_c: 4 },
      profile: { tool_call_id: "call_9f2", tool_result_annotation: { cache: "hit", rank: 1 } },
      metadata: { "otel.status_code": "OK" },
    }),
    mark({
      uuid: M1,
      parent: T,
      name: "cache.lookup",
      at: ts("0.977312"),
      category: "custom",
      profile: { subtype: "acme.cache" },
      data: { hit: true },
      schema: { name: "acme.cache_lookup", version: "1" },
      metadata: { "nemo_relay.log.severity": "info" },
    }),
    mark({ uuid: M2, parent: T, name: "audit.recorded", at: ts("0.977313"), data: { policy: "p1" } }),
    end({
      uuid: A,
      parent: HIDDEN_ROOT,
      name: "weather-agent",
      category: "agent",
      at: ts("1.203000"),
      metadata: { session_id: "conv-42", "otel.status_code": "OK" },
    }),
  ];
}
