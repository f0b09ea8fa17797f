// Hand-built ATOF events for the ATIF tests (snake_case, as subscribers receive them).
import type { Json, JsonObject } from "../../src/events/json.js";
import type { AtofEvent, MarkEvent, ScopeEvent } from "../../src/events/types.js";

export function scope(
  phase: "start" | "end",
  fields: {
    uuid: string;
    parent: string | null;
    ts: string;
    name: string;
    category: string;
    profile?: JsonObject | null;
    data?: Json;
    metadata?: Json;
    attributes?: string[];
  },
): ScopeEvent {
  return {
    kind: "scope",
    scope_category: phase,
    atof_version: "0.1",
    uuid: fields.uuid,
    parent_uuid: fields.parent,
    timestamp: fields.ts,
    name: fields.name,
    attributes: fields.attributes ?? [],
    category: fields.category,
    category_profile: fields.profile ?? null,
    data: fields.data ?? null,
    data_schema: null,
    metadata: fields.metadata ?? null,
  };
}

export function mark(fields: {
  uuid: string;
  parent: string | null;
  ts: string;
  name: string;
  data?: Json;
  category?: string | null;
  profile?: JsonObject | null;
}): MarkEvent {
  return {
    kind: "mark",
    atof_version: "0.1",
    uuid: fields.uuid,
    parent_uuid: fields.parent,
    timestamp: fields.ts,
    name: fields.name,
    category: fields.category ?? null,
    category_profile: fields.profile ?? null,
    data: fields.data ?? null,
    data_schema: null,
    metadata: null,
  };
}

export const ROOT = "019ca945-0a00-752e-89a7-834df2a74de4";
export const AGENT = "019ca945-0a01-7651-8317-1ff4a6a3a450";
export const LLM1 = "019ca945-0a50-7000-8000-000000000001";
export const TOOL = "019ca945-0b9c-7128-a24b-e40ad23f0824";

/** The OpenAI run of atof.md §10: an agent, an LLM call listing call_9f2, the annotated tool and two pending marks. */
export function weatherRun(): AtofEvent[] {
  return [
    scope("start", {
      uuid: AGENT,
      parent: ROOT,
      ts: "2026-03-01T12:00:00.001000Z",
      name: "weather-agent",
      category: "agent",
      data: { prompt: "Weather in Oslo?" },
      metadata: { session_id: "conv-42" },
    }),
    scope("start", {
      uuid: LLM1,
      parent: AGENT,
      ts: "2026-03-01T12:00:00.100000Z",
      name: "openai.chat_completions",
      category: "llm",
      profile: { model_name: "gpt-4.1" },
      data: {
        headers: {},
        content: {
          model: "gpt-4.1",
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "Weather in Oslo?" },
          ],
        },
      },
    }),
    scope("end", {
      uuid: LLM1,
      parent: AGENT,
      ts: "2026-03-01T12:00:00.300000Z",
      name: "openai.chat_completions",
      category: "llm",
      profile: { model_name: "gpt-4.1" },
      data: {
        model: "gpt-4.1-2025-04-14",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "call_9f2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138, prompt_tokens_details: { cached_tokens: 100 } },
      },
      metadata: { "otel.status_code": "OK" },
    }),
    scope("start", {
      uuid: TOOL,
      parent: AGENT,
      ts: "2026-03-01T12:00:00.412000Z",
      name: "get_weather",
      category: "tool",
      profile: { tool_call_id: "call_9f2" },
      data: { city: "Oslo" },
    }),
    scope("end", {
      uuid: TOOL,
      parent: AGENT,
      ts: "2026-03-01T12:00:00.977311Z",
      name: "get_weather",
      category: "tool",
      profile: { tool_call_id: "call_9f2", tool_result_annotation: { cache: "hit", rank: 1 } },
      data: { temp_c: 4 },
      metadata: { "otel.status_code": "OK" },
    }),
    mark({
      uuid: "019ca945-0dd1-70ed-a079-d3bde8e25d94",
      parent: TOOL,
      ts: "2026-03-01T12:00:00.977312Z",
      name: "cache.lookup",
      category: "custom",
      profile: { subtype: "acme.cache" },
      data: { hit: true },
    }),
    mark({
      uuid: "019ca945-0dd1-70ed-a079-d3bde8e25d95",
      parent: TOOL,
      ts: "2026-03-01T12:00:00.977313Z",
      name: "cache.store",
      category: "custom",
      profile: { subtype: "acme.cache" },
      data: { stored: false },
    }),
    scope("end", {
      uuid: AGENT,
      parent: ROOT,
      ts: "2026-03-01T12:00:01.500000Z",
      name: "weather-agent",
      category: "agent",
      data: { status: "done", text: "4 degrees" },
      metadata: { "otel.status_code": "OK" },
    }),
  ];
}
