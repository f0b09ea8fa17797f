import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";

/** Body keys the loop owns: `requestParams` may not set them. */
export const RESERVED_BODY_KEYS: readonly string[] = ["messages", "tools", "stream"];

/** `(body) => body`; returning `undefined` keeps the body it was given. */
export type BodyTransform = (body: Record<string, unknown>) => Record<string, unknown> | undefined;

/** How every provider body is finished: base → `requestParams` → `bodyTransform`. */
export interface BodyShaping {
  requestParams?: Readonly<Record<string, unknown>>;
  bodyTransform?: BodyTransform;
}

/**
 * Checks `requestParams` once, when the client is made, and returns a private copy.
 * A reserved key is a TypeError rather than a silent skip: the caller asked for something the
 * loop will not do, and a failure at construction is easier to find than a missing warning.
 */
export function checkRequestParams(params: unknown): Readonly<Record<string, unknown>> | undefined {
  if (params === undefined) return undefined;
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new TypeError("requestParams must be a plain object of body fields");
  }
  const reserved = Object.keys(params).filter((k) => RESERVED_BODY_KEYS.includes(k));
  if (reserved.length > 0) {
    throw new TypeError(
      `requestParams may not set ${reserved.map((k) => `"${k}"`).join(", ")}: ` +
        "the loop owns messages, tools and stream (use bodyTransform to rewrite them)",
    );
  }
  return Object.freeze({ ...(params as Record<string, unknown>) });
}

/**
 * The body actually sent: `requestParams` shallow-merged over the base, then `bodyTransform`
 * on a copy (so an in-place edit cannot leak into the run's transcript).
 */
export function shapeBody(shaping: BodyShaping, base: JsonObject): JsonObject {
  const params = checkRequestParams(shaping.requestParams);
  const merged: JsonObject = params ? { ...base, ...(params as Record<string, Json>) } : base;
  if (!shaping.bodyTransform) return merged;
  const copy = structuredClone(merged);
  const out = shaping.bodyTransform(copy);
  if (out === undefined) return copy;
  if (!isJsonObject(out)) throw new TypeError("bodyTransform must return an object or undefined");
  return out as JsonObject;
}
