import { readTextFileSync } from "../events/read-file-sync.js";
import type { JsonObject } from "../events/json.js";
import { PROFILE_COST } from "../events/wire-names.js";
import { isDict } from "./read.js";
import type { WireUsage } from "./types.js";

/**
 * Cost from a pricing catalog the app supplies (its entries take precedence over the bundled
 * table, src/wire/price-table.ts). Rates are USD per million tokens.
 */

export interface PricingEntry {
  /** the model id; it also prices its dated snapshots (`gpt-4.1-2025-04-14`), never a longer name (`gpt-4.1-mini`) */
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  /** cache reads; input rate when absent */
  cacheReadPerMTok?: number;
  /** cache writes; input rate when absent */
  cacheWritePerMTok?: number;
  /** when these prices were read (e.g. "2026-11-01"); recorded with the cost */
  pricingAsOf?: string;
  /** where they were read (a URL or a contract name); recorded with the cost */
  pricingSource?: string;
}

export interface PricingCatalog {
  entries: PricingEntry[];
}

/** The cost of one call, as `llm` end events carry it (`category_profile.cost`, snake_case). */
export interface LlmCost {
  total: number;
  /** input tokens, cache reads and writes included (absent for a cost the provider reported as one sum) */
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  currency: "USD";
  /** the model as priced: the catalog entry's or the table's id (`gpt-4o-mini` for `gpt-4o-mini-2024-07-18`) */
  model: string;
  /** the table's provider whose prices applied */
  provider?: string;
  pricingAsOf?: string;
  /** the catalog entry's source, `@pydantic/genai-prices <version>`, or `provider` for a cost the reply reported */
  pricingSource?: string;
}

const RATE_KEYS = ["inputPerMTok", "outputPerMTok", "cacheReadPerMTok", "cacheWritePerMTok"] as const;
const ENTRY_KEYS = new Set<string>(["model", ...RATE_KEYS, "pricingAsOf", "pricingSource"]);

/** Checks a catalog and returns a frozen copy; a TypeError names the entry and field that is wrong. */
export function checkPricingCatalog(value: unknown, where = "pricing"): PricingCatalog {
  if (!isDict(value) || !Array.isArray(value.entries)) throw new TypeError(`${where} must be { entries: [...] } (a pricing catalog)`);
  const entries = value.entries.map((raw: unknown, i: number): PricingEntry => {
    const at = `${where}.entries[${i}]`;
    if (!isDict(raw)) throw new TypeError(`${at} must be an object`);
    for (const key of Object.keys(raw))
      if (!ENTRY_KEYS.has(key)) throw new TypeError(`${at}: unknown key "${key}"; allowed: ${[...ENTRY_KEYS].join(", ")}`);
    if (typeof raw.model !== "string" || raw.model === "") throw new TypeError(`${at}.model must be a non-empty string`);
    for (const key of ["pricingAsOf", "pricingSource"] as const) {
      if (raw[key] !== undefined && (typeof raw[key] !== "string" || raw[key] === ""))
        throw new TypeError(`${at}.${key} must be a non-empty string when given`);
    }
    for (const key of RATE_KEYS) {
      const v = raw[key];
      const optional = key === "cacheReadPerMTok" || key === "cacheWritePerMTok";
      if (v === undefined && optional) continue;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
        throw new TypeError(`${at}.${key} must be a non-negative number of USD per million tokens`);
    }
    return Object.freeze({ ...(raw as unknown as PricingEntry) });
  });
  return Object.freeze({ entries: Object.freeze(entries) as PricingEntry[] });
}

/** A catalog, or the path of a JSON file holding one (read once, checked). */
export function loadPricingCatalog(option: PricingCatalog | string): PricingCatalog {
  if (typeof option !== "string") return checkPricingCatalog(option);
  let text: string;
  try {
    text = readTextFileSync(option);
  } catch (cause) {
    throw new TypeError(`pricing: cannot read ${option}: ${(cause as Error).message}`, { cause });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new TypeError(`pricing: ${option} is not JSON: ${(cause as Error).message}`, { cause });
  }
  return checkPricingCatalog(parsed, `pricing (${option})`);
}

/** A dated snapshot suffix: `-2024-08-06` (OpenAI), `-20241022` (Anthropic), `@20241022` (Vertex). */
const DATED_SNAPSHOT = /^[-@](?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The entry for a model: an exact match, else the entry the model is a dated snapshot of
 * (`gpt-4o-2024-08-06` → `gpt-4o`). A longer model name never takes a shorter one's price
 * (`gpt-4o-mini` is not `gpt-4o`, `o1-pro` is not `o1`): an unlisted model has no price.
 */
export function priceEntryFor(catalog: PricingCatalog, model: string): PricingEntry | undefined {
  let snapshotOf: PricingEntry | undefined;
  for (const entry of catalog.entries) {
    if (entry.model === model) return entry;
    if (model.startsWith(entry.model) && DATED_SNAPSHOT.test(model.slice(entry.model.length))) snapshotOf ??= entry;
  }
  return snapshotOf;
}

function usd(tokens: number, perMTok: number): number {
  return (tokens * perMTok) / 1_000_000;
}

/** Rounded to 1e-12 USD, so sums of rates do not show float noise. */
function round(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}

/** The cost of a usage under an entry: cached input is priced at the cache rates, the rest at the input rate. */
export function costOf(entry: PricingEntry, usage: WireUsage): LlmCost {
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, (usage.inputTokens ?? 0) - read - write);
  const cacheRead = usd(read, entry.cacheReadPerMTok ?? entry.inputPerMTok);
  const cacheWrite = usd(write, entry.cacheWritePerMTok ?? entry.inputPerMTok);
  const input = usd(fresh, entry.inputPerMTok) + cacheRead + cacheWrite;
  const output = usd(usage.outputTokens ?? 0, entry.outputPerMTok);
  const cost: LlmCost = {
    total: round(input + output),
    input: round(input),
    output: round(output),
    currency: "USD",
    model: entry.model,
  };
  if (entry.pricingAsOf !== undefined) cost.pricingAsOf = entry.pricingAsOf;
  if (entry.pricingSource !== undefined) cost.pricingSource = entry.pricingSource;
  if (usage.cacheReadTokens !== undefined) cost.cacheRead = round(cacheRead);
  if (usage.cacheWriteTokens !== undefined) cost.cacheWrite = round(cacheWrite);
  return cost;
}

/** The cost as the event records it (snake_case keys). */
export function costRecord(cost: LlmCost): JsonObject {
  const out: JsonObject = { total: cost.total, currency: cost.currency };
  if (cost.input !== undefined) out.input = cost.input;
  if (cost.output !== undefined) out.output = cost.output;
  if (cost.cacheRead !== undefined) out.cache_read = cost.cacheRead;
  if (cost.cacheWrite !== undefined) out.cache_write = cost.cacheWrite;
  out.model = cost.model;
  if (cost.provider !== undefined) out.provider = cost.provider;
  if (cost.pricingAsOf !== undefined) out.pricing_as_of = cost.pricingAsOf;
  if (cost.pricingSource !== undefined) out.pricing_source = cost.pricingSource;
  return out;
}

/**
 * The cost an `llm` end event carries (`category_profile.cost`), read back: total and currency,
 * and the parts recorded; `key` reads another profile key of the same shape (`total_cost`, the
 * roll-up on an agent or root scope's end).
 */
export function recordedCost(
  profile: unknown,
  key: string = PROFILE_COST,
): { total: number; currency: string; input?: number; output?: number; cacheRead?: number; cacheWrite?: number } | undefined {
  const cost = isDict(profile) ? profile[key] : undefined;
  if (!isDict(cost) || typeof cost.total !== "number" || !Number.isFinite(cost.total)) return undefined;
  const out: { total: number; currency: string; input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {
    total: cost.total,
    currency: typeof cost.currency === "string" ? cost.currency : "USD",
  };
  if (typeof cost.input === "number") out.input = cost.input;
  if (typeof cost.output === "number") out.output = cost.output;
  if (typeof cost.cache_read === "number") out.cacheRead = cost.cache_read;
  if (typeof cost.cache_write === "number") out.cacheWrite = cost.cache_write;
  return out;
}
