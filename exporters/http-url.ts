import { describeValue } from "../src/events/option-spec.js";

/**
 * Parses an absolute http(s) URL option or throws a TypeError naming it. `localhost:4318` parses
 * with protocol `localhost:`, so the protocol is checked too, with a hint for the missing scheme.
 */
export function requireHttpUrl(owner: string, key: string, value: unknown): URL {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${owner}: ${key} must be an absolute http(s) URL (got ${describeValue(value)})`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${owner}: ${key} ${JSON.stringify(value)} is not a valid URL (expected an absolute http(s) URL)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const hint = value.includes("://") ? "" : ` (did you mean "http://${value}"?)`;
    throw new TypeError(`${owner}: ${key} ${JSON.stringify(value)} must be an http or https URL, not ${url.protocol}${hint}`);
  }
  return url;
}
