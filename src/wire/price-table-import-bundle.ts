// "#price-table" under the "workerd", "worker" and "browser" conditions (wrangler, and bundlers
// for browsers): no import of the 900 KiB table, so a Worker that does not price from it does
// not carry it. `import "relaytrace/prices"` in the app puts it in (price-table-provided.ts).
// Leaf module: it imports nothing of relaytrace's (see package.json "imports").

/** The `import "..."` that puts the table into a Worker or browser bundle. */
export const PRICE_TABLE_OPT_IN: string | undefined = "relaytrace/prices";

/** Throws at once: without the opt-in import the table is not in this bundle. */
export function importPriceTable(): Promise<unknown> {
  throw new Error(
    `the bundled price table is not in this bundle: add import "${PRICE_TABLE_OPT_IN}" to the app once, ` +
      "or give prices in createRuntime({ pricing })",
  );
}
