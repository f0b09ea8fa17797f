// relaytrace/prices — `import "relaytrace/prices"` puts the bundled price table
// (`@pydantic/genai-prices`) into a Worker or browser bundle, where it is left out unless asked
// for. On Node, Bun and Deno the table is found without it; importing it there only loads the
// table when the app starts instead of at the first priced call.
import * as table from "@pydantic/genai-prices";
import { providePriceTable } from "../wire/price-table-provided.js";

providePriceTable(table);

export {};
