import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { AtofEvent } from "../../src/events/types.js";
import { codecForEvent, recordedCost, sharedDecodeResponse } from "../../src/wire/index.js";
import type { WireToolCall } from "../../src/wire/index.js";
import { cloneJson, sharingPayloads, unwrapBody } from "./content.js";
import { metricsFromUsage } from "./metrics.js";
import type { AtifMessage, AtifMetrics, AtifToolCall } from "./types.js";

/** What one LLM response contributes to its agent step. */
export interface ResponseParts {
  message: AtifMessage;
  model?: string;
  reasoningContent?: string;
  toolCalls: AtifToolCall[];
  metrics?: AtifMetrics;
}

/** Tool-call arguments are always an object in ATIF; strings are parsed when possible. */
export function normalizeArguments(raw: Json | undefined): JsonObject {
  if (raw === undefined || raw === null) return {};
  if (isJsonObject(raw)) return cloneJson(raw);
  if (typeof raw === "string") {
    let parsed: Json;
    try {
      parsed = JSON.parse(raw) as Json;
    } catch {
      return { raw };
    }
    return isJsonObject(parsed) ? parsed : { value: parsed };
  }
  return { value: cloneJson(raw) };
}

/**
 * ATIF tool calls from decoded ones: a missing id becomes `{name}:{index+1}`, entries without a
 * name are skipped, the provider's other keys go to `extra`.
 */
function toolCallsFrom(calls: readonly WireToolCall[]): AtifToolCall[] {
  const out: AtifToolCall[] = [];
  for (let index = 0; index < calls.length; index++) {
    const c = calls[index]!;
    if (c.name === "") continue;
    const call: AtifToolCall = {
      tool_call_id: c.id !== "" ? c.id : `${c.name}:${index + 1}`,
      function_name: c.name,
      arguments: argumentsOf(c),
    };
    if (c.extra !== undefined) call.extra = cloneJson(c.extra);
    out.push(call);
  }
  return out;
}

/**
 * A call's arguments for the document, never aliasing the shared decode: an object the decoder
 * parsed from the argument text is parsed again from that text (one parse, where a copy would
 * serialize and parse); anything else goes through `normalizeArguments`.
 */
function argumentsOf(call: WireToolCall): JsonObject {
  const input = call.input;
  // The exporter's documents are only validated and written: the shared decode's arguments serve.
  if (sharingPayloads() && isJsonObject(input)) return input;
  if (isJsonObject(input) && !Object.isFrozen(input) && call.arguments !== "") {
    try {
      const parsed = JSON.parse(call.arguments) as Json;
      if (isJsonObject(parsed)) return parsed;
    } catch {
      // not the text it was parsed from: copy it below
    }
  }
  return normalizeArguments(input);
}

/** Reads message, reasoning, tool calls, model and usage from an LLM end, through its dialect's codec. */
export function responseParts(event: AtofEvent): ResponseParts {
  const body = unwrapBody(event.data);
  if (typeof body === "string") return { message: body, toolCalls: [] };
  if (!isJsonObject(body)) return { message: "", toolCalls: [] };
  const codec = codecForEvent({ dataSchema: event.data_schema, name: event.name, body, which: "response" });
  if (codec === undefined) return { message: "", toolCalls: [] };
  const response = sharedDecodeResponse(codec, body);
  const parts: ResponseParts = { message: response.text, toolCalls: toolCallsFrom(response.toolCalls) };
  if (response.reasoning !== undefined) parts.reasoningContent = response.reasoning;
  if (response.model !== undefined) parts.model = response.model;
  // The cost the runtime recorded (the app's entry, else the reply's own, else the bundled table) wins over the usage's.
  const cost = recordedCost(event.category_profile);
  const metrics = metricsFromUsage(response.usage, cost !== undefined && cost.currency === "USD" ? cost.total : undefined);
  if (metrics) parts.metrics = metrics;
  return parts;
}
