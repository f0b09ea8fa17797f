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

const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
  "set-cookie",
  "x-goog-api-key",
]);

/** True for headers that carry credentials and must never reach an event. */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || /(^|[-_])(token|secret|api[-_]?key)($|[-_])/.test(lower);
}

/** The headers with credential entries removed, for the `llm` event's request record. */
export function eventSafeHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !isCredentialHeader(k)));
}

/** What stands in for a credential that a provider echoed back in an error body. */
export const SCRUBBED_CREDENTIAL = "[credential]";

/**
 * Removes the values of the credential headers from `text` (a provider error body may echo the
 * key, and error messages reach span status and diagnostics). Each whole value and each of its
 * space-, `;`- or `=`-separated parts of 8+ characters (the token after `Bearer`, a cookie value) is replaced.
 */
export function scrubCredentials(text: string, headers: Record<string, string> | undefined): string {
  if (headers === undefined || text === "") return text;
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(headers)) {
    if (!isCredentialHeader(key) || typeof value !== "string") continue;
    for (const part of [value, ...value.split(/[\s;=]+/)]) if (part.length >= 8) secrets.add(part);
  }
  let out = text;
  // Longest first, so a whole value goes before the token inside it.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(SCRUBBED_CREDENTIAL);
  return out;
}
