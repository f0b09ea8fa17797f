import type { GoogleGenAI } from "@google/genai";
import { declareOptions, describeValue } from "../../events/option-spec.js";
import type { Json } from "../../events/json.js";
import { geminiCodec } from "../../wire/index.js";
import { contentFreeRequest } from "../provider-sdk/content-free.js";
import { failWithSdkError } from "../provider-sdk/failures.js";
import { callSettings, PROVIDER_SDK_SPEC, type CallSettings, type ProviderSdkOptions } from "../provider-sdk/options.js";
import { recordLlmCall, type CallStart, type RecordedCall } from "../provider-sdk/recorded-call.js";
import { recordReply, type ReplyShape } from "../provider-sdk/reply-recorder.js";
import { headerRecord, replaceMethod, serverOf, withHeaders } from "../provider-sdk/sdk-method.js";

/** Options of `traceGoogleGenAI`. */
export type TraceGoogleGenAIOptions = ProviderSdkOptions;

const OPTIONS = declareOptions<TraceGoogleGenAIOptions>("traceGoogleGenAI", PROVIDER_SDK_SPEC);

/** The model requests `generateContent` and `generateContentStream` send (Gemini API and Vertex AI paths alike). */
const GENERATE = /\/(?:models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The SDK's `ApiError` carries the error body as JSON text in its message. */
function errorBody(error: unknown): Json | undefined {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message !== "string") return undefined;
  try {
    return JSON.parse(message) as Json;
  } catch {
    return message;
  }
}

type ApiCall = (this: unknown, ...args: unknown[]) => unknown;

/** The model and verb of a model request's URL; null for any other request the client makes. */
function modelRequest(url: unknown): RegExpExecArray | null {
  if (typeof url !== "string") return null;
  try {
    return GENERATE.exec(new URL(url).pathname);
  } catch {
    return null;
  }
}

function readBody(body: unknown): unknown {
  if (typeof body !== "string") return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/**
 * The client's one HTTP step (`apiCall(url, init, retryOptions, timeout, abortSignal, fetch)`),
 * traced for model requests: the body is the one the SDK built from the app's parameters (its
 * REST form, which the Gemini codec reads), the retries run inside, and the answer is the raw
 * HTTP response, read from a copy before the SDK reads its own.
 */
function tracedApiCall(original: ApiCall, settings: CallSettings): ApiCall {
  return function traced(this: unknown, ...args: unknown[]): unknown {
    const [url, init, , , abortSignal] = args;
    const match = modelRequest(url);
    if (match === null || typeof init !== "object" || init === null) return original.apply(this, args);
    const runtime = settings.runtime();
    if (!runtime.isRecording()) return original.apply(this, args);
    const requestInit = init as { body?: unknown; headers?: unknown };
    const body = readBody(requestInit.body);
    const start: CallStart = {
      name: settings.name ?? geminiCodec.eventName,
      body: settings.captureContent ? body : contentFreeRequest("gemini", body),
      headers: headerRecord(requestInit.headers),
      model: decodeURIComponent(match[1]!),
      dataSchema: geminiCodec.schema,
      stream: match[2] === "streamGenerateContent",
    };
    const server = serverOf(url);
    if (server !== undefined) start.server = server;
    let call: RecordedCall;
    try {
      call = recordLlmCall(runtime, start);
    } catch {
      return original.apply(this, args); // telemetry never breaks the app
    }
    const signal = typeof (abortSignal as AbortSignal | undefined)?.aborted === "boolean" ? (abortSignal as AbortSignal) : undefined;
    const sent = [url, { ...requestInit, headers: withHeaders(requestInit.headers, call.traceHeaders()) }, ...args.slice(2)];
    let promise: unknown;
    try {
      promise = call.within(() => original.apply(this, sent));
    } catch (error) {
      failWithSdkError(call, error, signal, errorBody);
      throw error;
    }
    const shape: ReplyShape = { codec: geminiCodec, captureContent: settings.captureContent };
    if (signal !== undefined) shape.signal = signal;
    // Registered before the SDK's own reader: the copy is taken while the body is unread.
    (promise as Promise<Response>).then(
      (response) => {
        let copy: Response;
        try {
          copy = response.clone();
        } catch {
          call.end(null, { "relaytrace.reply_unrecorded": "the HTTP response had been read before relaytrace could copy it" });
          return;
        }
        void recordReply(call, copy, shape);
      },
      (error: unknown) => failWithSdkError(call, error, signal, errorBody),
    );
    return promise;
  };
}

/**
 * Traces a Google Gen AI client (`@google/genai` 3) and returns it, typed as it was given: each
 * model request that `models.generateContent` and `models.generateContentStream` send (and what
 * is built on them, such as `chats`) becomes an `llm` scope. One call is usually one request; when
 * the SDK sends several for one call — automatic function calling with callable tools, automatic
 * continuation — each is its own scope, with its own request, reply, usage and cost. The app gets
 * exactly what the untraced client returns. Wrapping the same client twice changes nothing.
 */
export function traceGoogleGenAI<C extends GoogleGenAI>(ai: C, options: TraceGoogleGenAIOptions = {}): C {
  OPTIONS.check(options);
  const apiClient = (ai as unknown as { apiClient?: { apiCall?: unknown } } | null)?.apiClient;
  if (typeof apiClient?.apiCall !== "function" || typeof (ai as { models?: unknown }).models !== "object")
    throw new TypeError(`traceGoogleGenAI: ai must be a GoogleGenAI client (new GoogleGenAI()) (got ${describeValue(ai)})`);
  const settings = callSettings(options);
  replaceMethod(apiClient, "apiCall", (original) => tracedApiCall(original, settings));
  return ai;
}
