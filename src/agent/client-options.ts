import { checkOptionKeys } from "../events/option-keys.js";
import { promptProfile } from "../runtime/prompt.js";
import { DIALECTS } from "../wire/index.js";
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
  "requestTimeoutMs",
  "maxResponseBytes",
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
  "prompt",
] as const);

/**
 * Rejects options that cannot work, at construction rather than on the first run:
 * a missing `baseUrl`/`model`, an unknown `style`, a bad `maxTurns` or `prompt`, or an unknown key.
 */
export function checkClientOptions(options: unknown): asserts options is ClientOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("createClient: options must be an object");
  const o = options as Record<string, unknown>;
  checkOptionKeys("createClient", o, CLIENT_OPTION_KEYS);
  if (typeof o.baseUrl !== "string" || o.baseUrl === "") throw new TypeError('createClient: option "baseUrl" must be a non-empty string');
  if (typeof o.style !== "string" || !(DIALECTS as readonly string[]).includes(o.style)) {
    throw new TypeError(
      `createClient: option "style" must be one of ${DIALECTS.map((d) => `"${d}"`).join(", ")} ` +
        `(got ${JSON.stringify(o.style) ?? "undefined"})`,
    );
  }
  if (typeof o.model !== "string" || o.model === "") throw new TypeError('createClient: option "model" must be a non-empty string');
  for (const key of ["requestTimeoutMs", "maxResponseBytes"] as const) {
    const v = o[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
      throw new TypeError(`createClient: option "${key}" must be a non-negative number (got ${String(v)})`);
    }
  }
  if (o.maxTurns !== undefined && !(Number.isInteger(o.maxTurns) && (o.maxTurns as number) > 0)) {
    throw new TypeError(`createClient: option "maxTurns" must be a positive integer (got ${String(o.maxTurns)})`);
  }
  if (o.prompt !== undefined) promptProfile(o.prompt);
}
