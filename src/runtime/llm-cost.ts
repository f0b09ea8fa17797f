import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { PROFILE_COST } from "../events/wire-names.js";
import { codecForEvent, costOf, costRecord, priceEntryFor } from "../wire/index.js";
import type { LlmCost, PricingCatalog, WireUsage } from "../wire/index.js";
import { priceTableError } from "../wire/price-table-loader.js";
import { tableCost, type PriceHint } from "../wire/price-table.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";

const MAX_MODEL_NAME = 256;

/** How a runtime prices `llm` ends: the app's catalog first, then the bundled table. */
export interface PricingSetup {
  catalog?: PricingCatalog;
}

/** What pricing one call found: the end profile (with the cost when priced), and the cost and usage for the roll-ups. */
export interface PricedCall {
  profile: JsonObject | null;
  cost?: LlmCost;
  usage?: WireUsage;
}

/** The call as pricing sees it. */
export interface CallToPrice {
  name: string;
  dataSchema?: DataSchema;
  modelName?: string;
  startedAtUs: number;
  /** the start's metadata: the loop records the host it called as `server_address` */
  metadata: Json;
}

function hostOf(metadata: Json): string | undefined {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return undefined;
  const host = metadata["server_address"] ?? metadata["server.address"];
  return typeof host === "string" ? host : undefined;
}

/**
 * Prices one `llm` end. The reply is decoded by its dialect's codec (its `data_schema`, else the
 * event name, else its shape); the model is the reply's own, else the requested one. In order: an
 * entry of the app's catalog; a cost the reply reported itself (a gateway's `usage.cost`); the
 * bundled table. Without a price the profile is unchanged and a diagnostic says why: no cost is
 * better than a wrong one.
 */
export function priceCall(
  profile: JsonObject | null,
  setup: PricingSetup,
  call: CallToPrice,
  response: Json,
  diagnostics: DiagnosticCounter,
): PricedCall {
  const codec = codecForEvent({ dataSchema: call.dataSchema ?? null, name: call.name, body: response, which: "response" });
  if (codec === undefined) return { profile };
  const reply = codec.decodeResponse(response);
  const usage = reply.usage;
  if (usage === undefined) return { profile };
  // No model id is longer than this: a longer name is nobody's price, and is never kept as a lookup key.
  const models = [reply.model, call.modelName].filter(
    (m, i, all): m is string => m !== undefined && m !== "" && m.length <= MAX_MODEL_NAME && all.indexOf(m) === i,
  );
  const named = reply.model || call.modelName;
  if (models.length === 0 && named) {
    diagnostics.record(
      "llm.unpriced_model",
      `no price for a model named ${named.slice(0, 80)}… (too long for a model id); the call has no cost`,
    );
  }
  const cost = costFor(setup, call, codec.provider, usage, models, diagnostics);
  if (cost === undefined) return { profile, usage };
  return { profile: { ...(profile ?? {}), [PROFILE_COST]: costRecord(cost) }, cost, usage };
}

function costFor(
  setup: PricingSetup,
  call: CallToPrice,
  dialectProvider: string,
  usage: WireUsage,
  models: readonly string[],
  diagnostics: DiagnosticCounter,
): LlmCost | undefined {
  const catalog = setup.catalog;
  if (catalog !== undefined) {
    for (const model of models) {
      const entry = priceEntryFor(catalog, model);
      if (entry !== undefined) return costOf(entry, usage);
    }
  }
  if (usage.costUsd !== undefined && models.length > 0) {
    return { total: usage.costUsd, currency: "USD", model: models[0]!, pricingSource: "provider" };
  }
  if (models.length === 0) return undefined;
  const hint: PriceHint = { dialectProvider, at: new Date(call.startedAtUs / 1000) };
  const host = hostOf(call.metadata);
  if (host !== undefined) hint.host = host;
  const found = tableCost(usage, models, hint);
  if (found === undefined) {
    const where = catalog === undefined ? "in the bundled price table" : "in neither the pricing catalog nor the bundled price table";
    diagnostics.record("llm.unpriced_model", `no price for model ${models[0]} ${where}; the call has no cost`);
    return undefined;
  }
  if (found === "loading") {
    diagnostics.record("llm.price_table_unavailable", "the bundled price table was still loading; the call has no cost");
    return undefined;
  }
  if (found === "unavailable") {
    const why = priceTableError() ?? "the bundled price table is unavailable";
    diagnostics.record("llm.price_table_unavailable", `${why}; the call has no cost`);
    return undefined;
  }
  if ("invalidUsage" in found) {
    const why = found.invalidUsage;
    diagnostics.record("llm.unpriced_usage", `the usage of a ${models[0]} call cannot be priced (${why}); the call has no cost`);
    return undefined;
  }
  return found;
}
