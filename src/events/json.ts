/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
  [key: string]: Json;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
