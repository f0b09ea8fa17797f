import type { Json } from "../../events/json.js";

/**
 * Replacing one method of one SDK object — an own property of that instance, so the SDK's
 * prototype and every other client stay as they are — once: a second wrap of the same object
 * finds its mark and changes nothing.
 */

const TRACED = Symbol.for("relaytrace.provider-sdk.traced");

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `target[key]` with `wrap(original)`; false when there is no such method or it is already traced. */
export function replaceMethod(target: unknown, key: string, wrap: (original: Method) => Method): boolean {
  if (typeof target !== "object" || target === null) return false;
  const holder = target as Record<string, unknown>;
  const original = holder[key];
  if (typeof original !== "function" || (original as { [TRACED]?: true })[TRACED]) return false;
  const traced = wrap(original as Method);
  Object.defineProperty(traced, TRACED, { value: true });
  Object.defineProperty(traced, "name", { value: (original as Method).name || key });
  Object.defineProperty(holder, key, { value: traced, writable: true, configurable: true, enumerable: false });
  return true;
}

/** A host name and port from a base URL (never its userinfo, path or query), for `server_address` / `server_port`. */
export function serverOf(baseUrl: unknown): { address: string; port: number } | undefined {
  if (typeof baseUrl !== "string") return undefined;
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    return { address: url.hostname, port };
  } catch {
    return undefined;
  }
}

/** Headers in any form an SDK takes (`Headers`, `[name, value][]`, a record) as a record of their string values. */
export function headerRecord(headers: unknown): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (headers === null || typeof headers !== "object") return out;
  const entries: Iterable<unknown> =
    typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function"
      ? (headers as Headers).entries()
      : Array.isArray(headers)
        ? headers
        : Object.entries(headers);
  for (const entry of entries) {
    if (!Array.isArray(entry)) continue;
    const [name, value] = entry as [unknown, unknown];
    if (typeof name === "string" && (typeof value === "string" || typeof value === "number")) out[name] = String(value);
  }
  return out;
}

/** `headers` (in the same form) with `extra` added; the app's object is never changed. */
export function withHeaders(headers: unknown, extra: Record<string, string>): unknown {
  const added = Object.entries(extra);
  if (added.length === 0) return headers;
  if (headers === undefined || headers === null) return { ...extra };
  if (typeof (headers as Headers).set === "function" && typeof (headers as Headers).forEach === "function") {
    const copy = new Headers(headers as Headers);
    for (const [name, value] of added) copy.set(name, value);
    return copy;
  }
  if (Array.isArray(headers)) return [...(headers as unknown[]), ...added];
  if (typeof headers === "object") return { ...(headers as object), ...extra };
  return headers;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
