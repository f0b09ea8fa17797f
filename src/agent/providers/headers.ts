import { DEFAULT_HEADER_POLICY } from "../../wire/credentials.js";

/** Header helpers shared by the transport, translate and the loop. */

/** Merges header layers case-insensitively; a later layer's value wins and keeps its spelling. */
export function mergeHeaders(...layers: (Record<string, string> | undefined)[]): Record<string, string> {
  const byLower = new Map<string, [string, string]>();
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [key, value] of Object.entries(layer)) byLower.set(key.toLowerCase(), [key, value]);
  }
  return Object.fromEntries(byLower.values());
}

/**
 * The values of `headers` that the credential policy does not record, removed from `text`
 * (see `HeaderPolicy.scrub`: a provider's error body may echo the key).
 */
export function scrubCredentials(text: string, headers: Record<string, string> | undefined): string {
  return DEFAULT_HEADER_POLICY.scrub(text, headers);
}
