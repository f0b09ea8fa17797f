import type OpenAI from "openai";
import { declareOptions, describeValue } from "../../events/option-spec.js";
import { isJsonObject, type Json } from "../../events/json.js";
import { openaiChatCodec, openaiResponsesCodec } from "../../wire/index.js";
import { embeddingsReply } from "../provider-sdk/content-free.js";
import { callSettings, PROVIDER_SDK_SPEC, type ProviderSdkOptions } from "../provider-sdk/options.js";
import { replaceMethod } from "../provider-sdk/sdk-method.js";
import { tracedStainlessMethod, type StainlessRoute } from "../provider-sdk/stainless-call.js";

/** Options of `traceOpenAI`. */
export type TraceOpenAIOptions = ProviderSdkOptions;

const OPTIONS = declareOptions<TraceOpenAIOptions>("traceOpenAI", PROVIDER_SDK_SPEC);

/** An OpenAI error's body as the wire carried it: the SDK keeps the `error` object inside it. */
function errorBody(error: unknown): Json | undefined {
  const inner = (error as { error?: unknown } | null)?.error;
  return isJsonObject(inner) ? { error: inner } : undefined;
}

const CHAT: StainlessRoute = { route: openaiChatCodec.eventName, codec: openaiChatCodec, dialect: "openai", errorBody };
const RESPONSES: StainlessRoute = {
  route: openaiResponsesCodec.eventName,
  codec: openaiResponsesCodec,
  dialect: "openai-responses",
  errorBody,
};
const EMBEDDINGS: StainlessRoute = {
  route: "openai.embeddings",
  codec: undefined,
  dialect: "embeddings",
  errorBody,
  transform: embeddingsReply,
};

/**
 * Traces an OpenAI client (`openai` 7) and returns it, typed as it was given:
 * `chat.completions.create` and `responses.create` (JSON and `stream: true`) become `llm` scopes,
 * `embeddings.create` an `embedder` scope. The SDK's helpers built on them (`parse`, `stream`,
 * `runTools`) are traced through them, one scope per request. Each call hands the app exactly what
 * the untraced client returns (the SDK's `APIPromise`, `Stream` and error classes). Wrapping the
 * same client twice changes nothing.
 */
export function traceOpenAI<C extends OpenAI>(client: C, options: TraceOpenAIOptions = {}): C {
  OPTIONS.check(options);
  if (typeof client !== "object" || client === null || typeof (client as { chat?: unknown }).chat !== "object")
    throw new TypeError(`traceOpenAI: client must be an OpenAI client (new OpenAI()) (got ${describeValue(client)})`);
  const settings = callSettings(options);
  const baseUrl = () => client.baseURL;
  replaceMethod(client.chat?.completions, "create", (original) => tracedStainlessMethod(original, CHAT, settings, baseUrl));
  replaceMethod(client.responses, "create", (original) => tracedStainlessMethod(original, RESPONSES, settings, baseUrl));
  replaceMethod(client.embeddings, "create", (original) => tracedStainlessMethod(original, EMBEDDINGS, settings, baseUrl));
  return client;
}
