import type { Json, JsonObject } from "../events/json.js";
import { isDict, str } from "./read.js";
import type { Dict } from "./read.js";
import type { WireSettings, WireToolChoice, WireToolDef } from "./types.js";

/** Request pieces several dialects share: settings, stop lists, tool entries, tool choice. */

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

/** Settings without the undefined ones; `stream` from the body's flag. */
export function settingsOf(body: Dict, found: WireSettings): WireSettings {
  const out: WireSettings = {};
  for (const [k, v] of Object.entries(found)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  if (body.stream === true) out.stream = true;
  return out;
}

export function stopList(raw: unknown): string[] | undefined {
  if (typeof raw === "string") return [raw];
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === "string");
  return undefined;
}

/**
 * A tool entry in any of the shapes: Chat `{type:"function", function:{name, description, parameters}}`,
 * Responses `{type:"function", name, parameters}`, Anthropic `{name, input_schema}`.
 */
export function toolDefFrom(raw: unknown): WireToolDef | undefined {
  if (!isDict(raw)) return undefined;
  const fn = isDict(raw.function) ? raw.function : raw;
  const name = str(fn.name);
  if (name === undefined) return undefined;
  const schema = fn.parameters ?? fn.input_schema ?? fn.parametersJsonSchema;
  const def: WireToolDef = { name, inputSchema: isDict(schema) ? (schema as JsonObject) : EMPTY_OBJECT_SCHEMA, raw: raw as Json };
  if (typeof fn.description === "string") def.description = fn.description;
  return def;
}

/** Tool choice in the Chat, Responses or Anthropic forms; undefined when absent or unknown. */
export function toolChoiceFrom(raw: unknown): WireToolChoice | undefined {
  if (raw === "auto" || raw === "none" || raw === "required") return raw;
  if (raw === "any") return "required";
  if (!isDict(raw)) return undefined;
  if (isDict(raw.function) && typeof raw.function.name === "string") return { name: raw.function.name };
  if ((raw.type === "tool" || raw.type === "function") && typeof raw.name === "string") return { name: raw.name };
  if (raw.type === "any") return "required";
  if (raw.type === "none") return "none";
  if (raw.type === "auto") return "auto";
  return undefined;
}

/** The body without the given keys (the invocation parameters). */
export function withoutKeys(body: Dict, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body)) if (!keys.includes(k)) out[k] = v as Json;
  return out;
}
