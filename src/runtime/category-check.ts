import { CATEGORIES } from "../events/types.js";

const CATEGORY_SET: ReadonlySet<string> = new Set(CATEGORIES);

/** The producer API emits only the ATOF 0.1 category vocabulary. */
export function checkCategory(category: unknown, where: string): void {
  if (category !== undefined && category !== null && !CATEGORY_SET.has(category as string)) {
    throw new TypeError(`${where}: category must be one of ${CATEGORIES.join(", ")} (got ${JSON.stringify(category)})`);
  }
}
