import type { ModelPrice, PriceCalculation, Provider } from "@pydantic/genai-prices";
import type { LlmCost } from "./pricing.js";
import { priceTable, priceTableSource, type PriceTableAbsence, type PriceTableModule } from "./price-table-loader.js";
import type { WireUsage } from "./types.js";

/** Where a call went, as far as the event knows: what picks the provider whose prices apply. */
export interface PriceHint {
  /** the dialect's provider (`openai`, `anthropic`, `google`): the provider when nothing better is known */
  dialectProvider?: string;
  /** the host the call was sent to (`api.groq.com`): a provider the table knows by its API address wins */
  host?: string;
  /** when the call was made: prices that changed on a date apply from that date */
  at: Date;
}

/** A table lookup: the cost, no price for the model (`undefined`), no table, or usage the table refuses. */
export type TablePrice = LlmCost | undefined | PriceTableAbsence | { invalidUsage: string };

/** `provider/model` or `provider:model` (OpenRouter, LiteLLM, pydantic-ai spell models so). */
const QUALIFIED = /^([A-Za-z0-9_.-]+)[/:](.+)$/;

/** Resolved lookups per table data, bounded: a model name is the app's (or a provider's) string. */
const MAX_MEMO = 512;
interface Memo {
  /** the table data these lookups were made against (`waitForUpdate()` changes when `updatePrices` swaps it) */
  epoch: unknown;
  /** `provider\0model` → that provider with only the matched model (a fast exact lookup), or null: not in the table */
  lookups: Map<string, Provider | null>;
}
const memo: Memo = { epoch: undefined, lookups: new Map() };

/**
 * The provider whose prices apply to `model`: the one the table knows by the host the call went
 * to; else the provider a qualified name names (`anthropic/claude-…`), with the rest as the model;
 * else the dialect's. Nothing else: a model name alone never picks a provider, since the same open
 * model costs differently at each host (no cost is better than a wrong one).
 */
function providerFor(table: PriceTableModule, model: string, hint: PriceHint): { providerId: string; model: string } | undefined {
  if (hint.host !== undefined && hint.host !== "") {
    const byHost = table.findProvider({ providerApiUrl: `https://${hint.host}` });
    if (byHost !== undefined) return { providerId: byHost.id, model };
  }
  const qualified = QUALIFIED.exec(model);
  if (qualified !== null) {
    const named = table.findProvider({ providerId: qualified[1]! });
    if (named !== undefined) return { providerId: named.id, model: qualified[2]! };
  }
  return hint.dialectProvider === undefined ? undefined : { providerId: hint.dialectProvider, model };
}

/** Token counts in the table's terms: `input_tokens` includes cache reads and writes, as in relaytrace's usage. */
function tableUsage(usage: WireUsage): Record<string, number> {
  const out: Record<string, number> = { input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 };
  if (usage.cacheReadTokens !== undefined) out.cache_read_tokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out.cache_write_tokens = usage.cacheWriteTokens;
  return out;
}

function calculate(table: PriceTableModule, usage: Record<string, number>, providerId: string, model: string, at: Date) {
  const epoch = table.waitForUpdate();
  if (memo.epoch !== epoch) {
    memo.epoch = epoch;
    memo.lookups.clear();
  }
  const key = `${providerId}\u0000${model}`;
  const known = memo.lookups.get(key);
  if (known === null) return null;
  if (known !== undefined) return table.calcPrice(usage, model, { provider: known, timestamp: at });
  const result = table.calcPrice(usage, model, { providerId, timestamp: at });
  if (memo.lookups.size >= MAX_MEMO) memo.lookups.clear();
  // The provider cut down to the one model found (it may come from a fallback provider's list).
  memo.lookups.set(key, result === null ? null : { ...result.provider, models: [result.model], fallback_model_providers: [] });
  return result;
}

/** The rate a price key charges at this call's input size (a tiered price switches on the total input tokens). */
function rateOf(prices: ModelPrice, key: string, inputTokens: number): number | undefined {
  const price = prices[key];
  if (price === undefined) return undefined;
  if (typeof price === "number") return price;
  let rate = price.base;
  for (const tier of [...price.tiers].sort((a, b) => a.start - b.start)) if (inputTokens > tier.start) rate = tier.price;
  return rate;
}

/** Rounded to 1e-12 USD, so sums of rates do not show float noise. */
function round(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}

function costFrom(result: PriceCalculation, usage: WireUsage): LlmCost {
  const cost: LlmCost = {
    total: round(result.total_price),
    input: round(result.input_price),
    output: round(result.output_price),
    currency: "USD",
    model: result.model.id,
    provider: result.provider.id,
    pricingSource: priceTableSource(),
  };
  // The table totals input; the cache parts are shown beside it at the rates it charged (a cache
  // count without a rate of its own is charged at the input rate).
  const input = usage.inputTokens ?? 0;
  const inputRate = rateOf(result.model_price, "input_mtok", input) ?? 0;
  if (usage.cacheReadTokens !== undefined) {
    cost.cacheRead = round((usage.cacheReadTokens * (rateOf(result.model_price, "cache_read_mtok", input) ?? inputRate)) / 1e6);
  }
  if (usage.cacheWriteTokens !== undefined) {
    cost.cacheWrite = round((usage.cacheWriteTokens * (rateOf(result.model_price, "cache_write_mtok", input) ?? inputRate)) / 1e6);
  }
  return cost;
}

/**
 * The cost of a call from the bundled `@pydantic/genai-prices` table: the first of `models` (the
 * reply's model, then the requested one) the table prices for the call's provider, with the
 * prices in effect at `hint.at`. Undefined when the table has no price for any of them.
 */
export function tableCost(usage: WireUsage, models: readonly string[], hint: PriceHint): TablePrice {
  const table = priceTable();
  if (typeof table === "string") return table;
  const counts = tableUsage(usage);
  for (const name of models) {
    const place = providerFor(table, name, hint);
    if (place === undefined) continue;
    let result: PriceCalculation | null;
    try {
      result = calculate(table, counts, place.providerId, place.model, hint.at);
    } catch (error) {
      // Counts the table refuses (cache reads above the input tokens, say): no cost, and why.
      return { invalidUsage: error instanceof Error ? error.message : String(error) };
    }
    if (result !== null) return costFrom(result, usage);
  }
  return undefined;
}
