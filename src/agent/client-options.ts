import { check, declareOptions, is } from "../events/option-spec.js";
import { DIALECTS } from "../wire/index.js";
import { promptOption } from "./call-options.js";
import type { ClientOptions } from "./types.js";

/** An OpenTelemetry `MeterProvider`: anything with a `getMeter` method. */
const meterProviderOption = check(
  "an OpenTelemetry MeterProvider (an object with a getMeter method)",
  (v) => typeof v === "object" && v !== null && typeof (v as { getMeter?: unknown }).getMeter === "function",
);

/**
 * `createClient`'s options, declared once (keys, type checks and messages derive from it): options
 * that cannot work fail at construction rather than on the first run — a missing `baseUrl`/`model`,
 * an unknown `style`, a bad `maxTurns`, or an unknown key.
 */
const CLIENT_OPTIONS = declareOptions<ClientOptions>(
  "createClient",
  {
    baseUrl: is.required(is.nonEmptyString),
    style: is.required(is.oneOf(...DIALECTS)),
    model: is.required(is.nonEmptyString),
    apiKey: is.string,
    headers: is.object,
    systemPrompt: is.string,
    maxTurns: is.positiveInteger,
    retries: is.nonNegativeNumber,
    retryBaseMs: is.nonNegativeNumber,
    timeoutMs: is.nonNegativeNumber,
    requestTimeoutMs: is.nonNegativeNumber,
    maxResponseBytes: is.nonNegativeNumber,
    waitFor: is.function,
    store: is.object,
    runtime: is.object,
    dispatcher: is.object,
    agentName: is.string,
    injectTraceparent: is.boolean,
    hooks: is.either(is.object, is.array),
    onMetric: is.function,
    meterProvider: meterProviderOption,
    requestParams: is.object,
    bodyTransform: is.function,
    onError: is.function,
    prompt: promptOption,
  },
  { label: (key) => `option "${key}"` },
);

/** Throws a TypeError naming the option when `options` cannot make a working client. */
export function checkClientOptions(options: unknown): asserts options is ClientOptions {
  if (options === undefined) throw new TypeError("createClient: options must be an object");
  CLIENT_OPTIONS.check(options);
}
