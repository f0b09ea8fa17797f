import type Anthropic from "@anthropic-ai/sdk";
import { declareOptions, describeValue, is } from "../../events/option-spec.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Json } from "../../events/json.js";
import { anthropicMessagesCodec } from "../../wire/index.js";
import { callSettings, PROVIDER_SDK_SPEC, type ProviderSdkOptions } from "../provider-sdk/options.js";
import { replaceMethod } from "../provider-sdk/sdk-method.js";
import { tracedStainlessMethod, type StainlessRoute } from "../provider-sdk/stainless-call.js";

/** Options of `traceAnthropic`. */
export interface TraceAnthropicOptions extends ProviderSdkOptions {
  /**
   * Keep the SDK's own OpenTelemetry call spans (it starts them when the app registered a tracer
   * provider). Default `false`: relaytrace's `llm` scope is the call's span, so a GenAI backend
   * counts each call once; the app's HTTP instrumentation still nests its request spans under it.
   */
  sdkSpans?: boolean;
}

const OPTIONS = declareOptions<TraceAnthropicOptions>("traceAnthropic", { ...PROVIDER_SDK_SPEC, sdkSpans: is.boolean });

/** An Anthropic error's body as the wire carried it (the SDK keeps the whole body). */
function errorBody(error: unknown): Json | undefined {
  const body = (error as { error?: unknown } | null)?.error;
  return body === undefined ? undefined : toJsonSafe(body);
}

const MESSAGES: StainlessRoute = {
  route: anthropicMessagesCodec.eventName,
  codec: anthropicMessagesCodec,
  dialect: "anthropic",
  errorBody,
};

/**
 * Traces an Anthropic client (`@anthropic-ai/sdk` 1) and returns it, typed as it was given:
 * `messages.create` (JSON and `stream: true`) becomes an `llm` scope. The `messages.stream(...)`
 * helper calls `messages.create` itself, so it is traced through it: one scope per call. Each call
 * hands the app exactly what the untraced client returns (the SDK's `APIPromise`, `Stream`,
 * `MessageStream` and error classes). Unless `sdkSpans` is set, the client stops emitting the
 * SDK's own OpenTelemetry call spans, which would duplicate relaytrace's. Wrapping the same client
 * twice changes nothing.
 */
export function traceAnthropic<C extends Anthropic>(client: C, options: TraceAnthropicOptions = {}): C {
  OPTIONS.check(options);
  if (typeof client !== "object" || client === null || typeof (client as { messages?: unknown }).messages !== "object")
    throw new TypeError(`traceAnthropic: client must be an Anthropic client (new Anthropic()) (got ${describeValue(client)})`);
  const settings = callSettings(options);
  const traced = replaceMethod(client.messages, "create", (original) =>
    tracedStainlessMethod(original, MESSAGES, settings, () => client.baseURL),
  );
  // The SDK starts its call span from the client's tracer, looked up per call (`_tracer`).
  if (traced && options.sdkSpans !== true && "_tracer" in client) (client as { _tracer?: unknown })._tracer = undefined;
  return client;
}
