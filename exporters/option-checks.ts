import { checkOptionKeys } from "../src/events/option-keys.js";

// Construction-time checks shared by the exporters: a configuration mistake throws a TypeError
// that names the option at startup, instead of surfacing later as silently lost telemetry.

/** Throws unless `value` is a plain object (the options bag itself, or a nested one like `agent`). */
export function requireObject(owner: string, label: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${owner}: ${label} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Throws on the first key that is not in `known` (the shared option check; one message format). */
export function rejectUnknownKeys(
  owner: string,
  options: Record<string, unknown>,
  known: readonly string[],
  prefix = "",
  context = "",
): void {
  checkOptionKeys(owner, options, known, { prefix, context });
}

/** Throws unless `value` is undefined or one of `allowed`. */
export function requireOneOf<T extends string>(owner: string, key: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined || (typeof value === "string" && (allowed as readonly string[]).includes(value))) return value as T | undefined;
  throw new TypeError(`${owner}: ${key} must be ${allowed.map((a) => JSON.stringify(a)).join(" | ")}, got ${describe(value)}`);
}

/** Throws unless `value` is undefined or a string. */
export function optionalString(owner: string, key: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === "string") return value;
  throw new TypeError(`${owner}: ${key} must be a string, got ${describe(value)}`);
}

/** Throws unless `value` is undefined or a boolean. */
export function optionalBoolean(owner: string, key: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw new TypeError(`${owner}: ${key} must be a boolean, got ${describe(value)}`);
}

/** Throws unless `value` is undefined or a finite number at least `min`. */
export function optionalNumber(owner: string, key: string, value: unknown, min: number): number | undefined {
  if (value === undefined || (typeof value === "number" && Number.isFinite(value) && value >= min)) return value;
  throw new TypeError(`${owner}: ${key} must be a finite number >= ${min}, got ${describe(value)}`);
}

/** Throws unless `value` is undefined or an object whose values are all strings (HTTP headers). */
export function optionalStringRecord(owner: string, key: string, value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const record = requireObject(owner, key, value);
  for (const [name, v] of Object.entries(record)) {
    if (typeof v !== "string") throw new TypeError(`${owner}: ${key}.${name} must be a string, got ${describe(v)}`);
  }
  return record as Record<string, string>;
}

/** Parses an absolute http(s) URL or throws; `localhost:4318` parses with protocol `localhost:`, so the protocol is checked too. */
export function requireHttpUrl(owner: string, key: string, value: unknown): URL {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${owner}: ${key} must be an absolute http(s) URL, got ${describe(value)}`);
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

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" && value !== null ? "an object" : String(value);
}
