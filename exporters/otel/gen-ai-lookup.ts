import {
  PROFILE_ANNOTATED_REQUEST,
  PROFILE_ANNOTATED_RESPONSE,
  PROFILE_MODEL_NAME,
  PROFILE_SUBTYPE,
  PROFILE_TOOL_CALL_ID,
  PROFILE_TOOL_RESULT_ANNOTATION,
} from "../../src/events/wire-names.js";
import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";

/** Profile keys with an ATOF meaning; only the others take part in lookups. */
const KNOWN_PROFILE_KEYS = new Set([
  PROFILE_MODEL_NAME,
  PROFILE_TOOL_CALL_ID,
  PROFILE_TOOL_RESULT_ANNOTATION,
  PROFILE_SUBTYPE,
  PROFILE_ANNOTATED_REQUEST,
  PROFILE_ANNOTATED_RESPONSE,
]);
const NESTED = ["usage", "request", "response"] as const;

function scalar(value: Json | undefined): string | number | boolean | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean") return value;
  return undefined;
}

function inObject(source: JsonObject, key: string, nested: boolean): string | number | boolean | undefined {
  const direct = scalar(source[key]);
  if (direct !== undefined || !nested) return direct;
  for (const inner of NESTED) {
    const child = source[inner];
    if (isJsonObject(child)) {
      const hit = scalar(child[key]);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** The gen_ai scalar lookup: unknown profile keys, then metadata, then data (one level into usage/request/response). */
export function lookupScalar(event: ScopeEvent, ...keys: string[]): string | number | boolean | undefined {
  const profile = event.category_profile;
  if (isJsonObject(profile)) {
    for (const key of keys) {
      if (KNOWN_PROFILE_KEYS.has(key)) continue;
      const hit = scalar(profile[key]);
      if (hit !== undefined) return hit;
    }
  }
  for (const source of [event.metadata, event.data]) {
    if (!isJsonObject(source)) continue;
    for (const key of keys) {
      const hit = inObject(source, key, true);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** The lookup as a string attribute value (numbers and booleans stringified). */
export function lookupString(event: ScopeEvent, ...keys: string[]): string | undefined {
  const hit = lookupScalar(event, ...keys);
  return hit === undefined ? undefined : String(hit);
}

/** The lookup as a number (numeric strings accepted). */
export function lookupNumber(event: ScopeEvent, ...keys: string[]): number | undefined {
  const hit = lookupScalar(event, ...keys);
  if (typeof hit === "number") return hit;
  if (typeof hit === "string" && hit.trim() !== "" && Number.isFinite(Number(hit))) return Number(hit);
  return undefined;
}

const PROVIDER_HINTS: ReadonlyArray<[string, string]> = [
  ["azure_openai", "azure.ai.openai"],
  ["anthropic", "anthropic"],
  ["claude", "anthropic"],
  ["openai", "openai"],
  ["gpt", "openai"],
  ["bedrock", "aws.bedrock"],
  ["gemini", "gcp.gemini"],
  ["vertex", "gcp.vertex_ai"],
  ["mistral", "mistral_ai"],
  ["cohere", "cohere"],
  ["deepseek", "deepseek"],
  ["groq", "groq"],
  ["perplexity", "perplexity"],
];

/** `gen_ai.provider.name`: an explicit lookup, else derived from the event name. */
export function genAiProviderOf(event: ScopeEvent): string | undefined {
  const explicit = lookupString(event, "gen_ai.provider.name", "provider_name", "provider");
  if (explicit) return explicit;
  const lower = event.name.toLowerCase();
  for (const [hint, provider] of PROVIDER_HINTS) if (lower.includes(hint)) return provider;
  return undefined;
}
