// The price table an app put into its bundle with `import "relaytrace/prices"`. Kept on a global
// (not in this module), so that every copy of relaytrace in a bundle finds the one provided.

const KEY = Symbol.for("relaytrace.providedPriceTable");
const holder = globalThis as unknown as Record<symbol, unknown>;

/** Makes `table` (the `@pydantic/genai-prices` module) the bundled table of this process or isolate. */
export function providePriceTable(table: unknown): void {
  holder[KEY] = table;
}

/** The table `relaytrace/prices` provided, if it was imported. */
export function providedPriceTable(): unknown {
  return holder[KEY];
}
