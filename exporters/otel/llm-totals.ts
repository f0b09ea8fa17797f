import type { Attributes } from "@opentelemetry/api";
import { SemanticConventions as SC } from "./openinference-conventions.js";
import { isJsonObject, type JsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { PROFILE_TOTAL_COST, PROFILE_TOTAL_USAGE } from "../../src/events/wire-names.js";
import { recordedCost } from "../../src/wire/index.js";
import type { GenAiConventions } from "./env.js";
import { GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS } from "./semconv-genai-0.1.js";
import * as G from "./semconv.js";

/**
 * The roll-up the runtime puts on the end of an agent scope and of a trace's outermost scope
 * (`category_profile.total_cost` and `.total_usage`: the model calls inside it), as each
 * projection shows it.
 */

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "calls"] as const;
const COST_COUNT_KEYS = ["priced_calls", "unpriced_calls"] as const;

type UsageTotals = Partial<Record<(typeof USAGE_KEYS)[number], number>>;

function totalUsageOf(end: ScopeEvent): UsageTotals | undefined {
  const profile = end.category_profile;
  const usage = isJsonObject(profile) ? profile[PROFILE_TOTAL_USAGE] : undefined;
  if (!isJsonObject(usage)) return undefined;
  const out: UsageTotals = {};
  for (const key of USAGE_KEYS) {
    const value = usage[key];
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return out;
}

/** full: `<ns>.total_cost.{total,currency,priced_calls,unpriced_calls}` and `<ns>.total_usage.*`. */
export function writeFullTotals(attrs: Attributes, ns: string, end: ScopeEvent): void {
  const cost = recordedCost(end.category_profile, PROFILE_TOTAL_COST);
  if (cost !== undefined) {
    attrs[`${ns}.total_cost.total`] = cost.total;
    attrs[`${ns}.total_cost.currency`] = cost.currency;
    const raw = (end.category_profile as JsonObject)[PROFILE_TOTAL_COST] as JsonObject;
    for (const key of COST_COUNT_KEYS) {
      const count = raw[key];
      if (typeof count === "number") attrs[`${ns}.total_cost.${key}`] = count;
    }
  }
  const usage = totalUsageOf(end);
  if (usage !== undefined) for (const key of USAGE_KEYS) if (usage[key] !== undefined) attrs[`${ns}.total_usage.${key}`] = usage[key];
}

/**
 * openinference: the total as `llm.cost.total` on relaytrace's outermost span only (the calls carry
 * their own `llm.cost.*`; a total on every agent span would count nested agents twice wherever
 * costs are summed over spans).
 */
export function writeOpenInferenceTotal(attrs: Attributes, end: ScopeEvent, outermost: boolean): void {
  if (!outermost) return;
  const cost = recordedCost(end.category_profile, PROFILE_TOTAL_COST);
  if (cost !== undefined && cost.currency === "USD") attrs[SC.LLM_COST_TOTAL] = cost.total;
}

/**
 * gen_ai: the usage of the calls inside an `invoke_agent` span as the `gen_ai.usage.*` input,
 * output and cache counts the conventions recommend on it (they define no cost attribute: the
 * cost stays in the other projections).
 */
export function writeGenAiAgentUsage(attrs: Attributes, end: ScopeEvent, conventions: GenAiConventions): void {
  const usage = totalUsageOf(end);
  if (usage === undefined) return;
  if (usage.input_tokens !== undefined) attrs[G.GEN_AI_USAGE_INPUT_TOKENS] = usage.input_tokens;
  if (usage.output_tokens !== undefined) attrs[G.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.output_tokens;
  if (usage.cache_read_tokens !== undefined) attrs[G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cache_read_tokens;
  if (usage.cache_write_tokens !== undefined) {
    attrs[conventions === "0.1.0" ? GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS : G.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] =
      usage.cache_write_tokens;
  }
}
