import type { Json, JsonObject } from "../events/json.js";
import type { DataSchema } from "../events/types.js";
import { PROFILE_COST } from "../events/wire-names.js";
import { codecForEvent, costOf, costRecord, priceEntryFor } from "../wire/index.js";
import type { PricingCatalog } from "../wire/index.js";

/**
 * The `llm` end profile with the call's cost, when a catalog prices its model: the reply is
 * decoded by its dialect's codec (its `data_schema`, else the event name, else its shape) and
 * the model is the reply's own, else the requested one. Without a price the profile is unchanged
 * and `onUnpriced` hears the model's name.
 */
export function pricedProfile(
  profile: JsonObject | null,
  catalog: PricingCatalog | undefined,
  call: { name: string; dataSchema?: DataSchema; modelName?: string },
  response: Json,
  onUnpriced?: (model: string) => void,
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
    // No cost rather than a wrong one; the caller counts the call so a missing price shows.
    if (model !== undefined) onUnpriced?.(model);
    return profile;
  }
  return { ...(profile ?? {}), [PROFILE_COST]: costRecord(costOf(entry, reply.usage)) };
}
