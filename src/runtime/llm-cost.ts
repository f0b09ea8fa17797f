import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { PROFILE_COST } from "../events/wire-names.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { codecForEvent, costOf, costRecord, priceEntryFor } from "../wire/index.js";
import type { PricingCatalog } from "../wire/index.js";

/** Counted once per priced-but-unpriceable call, so a catalog that misses a model in use shows up. */
export const UNPRICED_MODEL_CODE = "pricing.model_unpriced";

/**
 * The `llm` end profile with the call's cost, when a catalog prices its model: the reply is
 * decoded by its dialect's codec (its `data_schema`, else the event name, else its shape) and
 * the model is the reply's own, else the requested one. A call with usage whose model the
 * catalog does not price keeps its profile unchanged (no cost rather than a wrong one) and is
 * counted as `pricing.model_unpriced`.
 */
export function pricedProfile(
  profile: JsonObject | null,
  catalog: PricingCatalog | undefined,
  call: { name: string; dataSchema?: DataSchema; modelName?: string },
  response: Json,
  diagnostics: DiagnosticCounter,
): JsonObject | null {
  if (catalog === undefined) return profile;
  const codec = codecForEvent({ dataSchema: call.dataSchema ?? null, name: call.name, body: response, which: "response" });
  if (codec === undefined) return profile;
  const reply = codec.decodeResponse(response);
  if (reply.usage === undefined) return profile;
  const model = reply.model ?? call.modelName;
  const entry =
    model === undefined
      ? undefined
      : (priceEntryFor(catalog, model) ?? (call.modelName ? priceEntryFor(catalog, call.modelName) : undefined));
  if (entry === undefined) {
    const named = model === undefined ? "a call that names no model" : `model "${model}"`;
    diagnostics.record(UNPRICED_MODEL_CODE, `${call.name}: the pricing catalog has no entry for ${named}; its llm end carries no cost`);
    return profile;
  }
  return { ...(profile ?? {}), [PROFILE_COST]: costRecord(costOf(entry, reply.usage)) };
}
