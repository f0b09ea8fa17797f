import type { ClientOptions } from "./types.js";

/** Every key `createClient` accepts; anything else is a typo that would otherwise be ignored silently. */
export const CLIENT_OPTION_KEYS: readonly (keyof ClientOptions)[] = Object.freeze([
  "baseUrl",
  "style",
  "model",
  "apiKey",
  "headers",
  "systemPrompt",
  "maxTurns",
  "retries",
  "retryBaseMs",
  "timeoutMs",
  "waitFor",
  "store",
  "runtime",
  "dispatcher",
  "agentName",
  "injectTraceparent",
  "hooks",
  "onMetric",
  "requestParams",
  "bodyTransform",
  "onError",
] as const);

const PROVIDER_STYLES: readonly string[] = ["openai", "anthropic"];

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!;
      prev[j] = Math.min(above + 1, prev[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return prev[b.length]!;
}

/** The known key a misspelt one most likely meant: same letters ignoring case and `_`/`-`, else a near miss. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const flat = (s: string) => s.replace(/[_-]/g, "").toLowerCase();
  const exact = known.find((k) => flat(k) === flat(key));
  if (exact) return exact;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(flat(key), flat(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  // Only a small slip counts as a suggestion; a wholly different word gets none.
  return bestDistance <= Math.max(2, Math.floor(flat(key).length / 4)) ? best : undefined;
}

/**
 * Rejects options that cannot work, at construction rather than on the first run:
 * a missing `baseUrl`/`model`, an unknown `style`, a bad `maxTurns`, or an unknown key.
 */
export function checkClientOptions(options: unknown): asserts options is ClientOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("createClient: options must be an object");
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if ((CLIENT_OPTION_KEYS as readonly string[]).includes(key)) continue;
    const hint = closestKey(key, CLIENT_OPTION_KEYS);
    throw new TypeError(
      `createClient: unknown option "${key}"${hint ? ` (did you mean "${hint}"?)` : ""}; allowed options: ${CLIENT_OPTION_KEYS.join(", ")}`,
    );
  }
  if (typeof o.baseUrl !== "string" || o.baseUrl === "") throw new TypeError("createClient: option \"baseUrl\" must be a non-empty string");
  if (typeof o.style !== "string" || !PROVIDER_STYLES.includes(o.style)) {
    throw new TypeError(`createClient: option "style" must be "openai" or "anthropic" (got ${JSON.stringify(o.style) ?? "undefined"})`);
  }
  if (typeof o.model !== "string" || o.model === "") throw new TypeError("createClient: option \"model\" must be a non-empty string");
  if (o.maxTurns !== undefined && !(Number.isInteger(o.maxTurns) && (o.maxTurns as number) > 0)) {
    throw new TypeError(`createClient: option "maxTurns" must be a positive integer (got ${String(o.maxTurns)})`);
  }
}
