// "#price-table" wherever a file system and Node-style resolution are at hand (Node, Bun, Deno,
// and bundles for them): the table is imported from its package when first needed.
// Leaf module: it imports nothing of relaytrace's (see package.json "imports").

/** The `import "..."` that puts the table into a Worker or browser bundle; none is needed here. */
export const PRICE_TABLE_OPT_IN: string | undefined = undefined;

/** Starts loading the bundled price table (`@pydantic/genai-prices`). */
export function importPriceTable(): Promise<unknown> {
  return import("@pydantic/genai-prices");
}
