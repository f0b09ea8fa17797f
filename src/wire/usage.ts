import type { Json, JsonObject } from "../events/json.js";
import { isDict, num, tokens } from "./read.js";
import type { WireUsage } from "./types.js";

/** The usage counts a dialect decoder found; `total` is derived when absent or 0. */
export interface UsageCounts {
  input?: number;
  output?: number;
  total?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** Keys some gateways (OpenRouter, LiteLLM) add to `usage` with a cost in USD. */
const COST_KEYS = ["cost_usd", "cost"];

/** Builds a WireUsage: absent counts stay absent, keys not in `consumed` go to `extra`. */
export function buildUsage(raw: unknown, counts: UsageCounts, consumed: readonly string[]): WireUsage {
  const usage: WireUsage = {};
  if (counts.input !== undefined) usage.inputTokens = counts.input;
  if (counts.output !== undefined) usage.outputTokens = counts.output;
  const total = counts.total !== undefined && counts.total > 0 ? counts.total : undefined;
  if (total !== undefined) usage.totalTokens = total;
  else if (counts.input !== undefined || counts.output !== undefined) usage.totalTokens = (counts.input ?? 0) + (counts.output ?? 0);
  if (counts.cacheRead !== undefined) usage.cacheReadTokens = counts.cacheRead;
  if (counts.cacheWrite !== undefined) usage.cacheWriteTokens = counts.cacheWrite;
  if (counts.reasoning !== undefined) usage.reasoningTokens = counts.reasoning;
  if (!isDict(raw)) return usage;
  for (const key of COST_KEYS) {
    const cost = num(raw[key]);
    if (cost !== undefined && cost >= 0) {
      usage.costUsd = cost;
      break;
    }
  }
  let extra: JsonObject | undefined;
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    if (v === undefined || consumed.includes(k) || COST_KEYS.includes(k)) continue;
    // A copy keeps the decoded usage apart from a body that may still change; a frozen value cannot.
    (extra ??= {})[k] = (typeof v === "object" && v !== null && !Object.isFrozen(v) ? structuredClone(v) : v) as Json;
  }
  if (extra !== undefined) usage.extra = extra;
  return usage;
}

/** Cached input tokens: cache reads plus cache writes, when either was reported. */
export function cachedTokensOf(usage: WireUsage | undefined): number | undefined {
  if (usage === undefined || (usage.cacheReadTokens === undefined && usage.cacheWriteTokens === undefined)) return undefined;
  return (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** A nested details object's count (`prompt_tokens_details.cached_tokens`). */
export function detail(raw: unknown, key: string, inner: string): number | undefined {
  return isDict(raw) && isDict(raw[key]) ? tokens((raw[key] as Record<string, unknown>)[inner]) : undefined;
}

/** Whether a details object holds only the given key (so it is fully represented and need not go to `extra`). */
export function onlyKey(raw: unknown, key: string, inner: string): boolean {
  return isDict(raw) && isDict(raw[key]) && Object.keys(raw[key] as object).every((k) => k === inner);
}
