import type { Json } from "../../events/json.js";
import type { Dialect, WireCodec } from "../../wire/index.js";
import { contentFreeRequest } from "./content-free.js";
import { failWithSdkError } from "./failures.js";
import type { CallSettings } from "./options.js";
import { recordEmbeddingsCall, recordLlmCall, type CallStart, type RecordedCall } from "./recorded-call.js";
import { recordReply, type ReplyShape } from "./reply-recorder.js";
import { headerRecord, isObject, serverOf, withHeaders } from "./sdk-method.js";

/**
 * A traced method of an SDK generated the way `openai` and `@anthropic-ai/sdk` are: the method
 * returns the SDK's `APIPromise`, whose response promise resolves with the HTTP response once the
 * request (retries included) has an answer, and whose body is parsed only when the app asks.
 *
 * The wrapper returns that very `APIPromise`: the app awaits it, calls `.withResponse()` or
 * `.asResponse()`, gets the SDK's `Stream` (which iterates, tees, converts with
 * `toReadableStream()` and aborts through its controller) and the SDK's error classes, as without
 * relaytrace. The reply is recorded from a copy of the HTTP response (`Response.clone()`), taken
 * by the first reader of the response promise, before the SDK or the app reads the body; the
 * copy is read to its end whatever the app does with its own, so a call always ends.
 */

/** One traced route of a Stainless-generated SDK. */
export interface StainlessRoute {
  /** the default scope name */
  route: string;
  /** the dialect's codec; undefined for embeddings */
  codec: WireCodec | undefined;
  dialect: Dialect | "embeddings";
  /** the provider's error body as its wire carried it, from the SDK's error */
  errorBody(error: unknown): Json | undefined;
  /** what the recorded reply becomes first */
  transform?: (reply: Json) => Json;
}

interface APIResponseProps {
  response?: unknown;
}

/** The promise of the HTTP response behind an `APIPromise` (its `_responseProps()` where the SDK names it). */
function responsePropsOf(promise: unknown): PromiseLike<APIResponseProps> | undefined {
  if (promise === null || typeof promise !== "object") return undefined;
  const holder = promise as { _responseProps?: () => unknown; responsePromise?: unknown };
  const props = typeof holder._responseProps === "function" ? holder._responseProps() : holder.responsePromise;
  return typeof (props as PromiseLike<unknown> | undefined)?.then === "function" ? (props as PromiseLike<APIResponseProps>) : undefined;
}

function isResponse(value: unknown): value is Response {
  return typeof (value as Response | null)?.clone === "function" && typeof (value as Response).headers?.get === "function";
}

function signalOf(options: unknown): AbortSignal | undefined {
  const signal = isObject(options) ? options["signal"] : undefined;
  return typeof (signal as AbortSignal | undefined)?.aborted === "boolean" ? (signal as AbortSignal) : undefined;
}

/** Reads the reply behind `promise` into `call`: the copy of the response, or the SDK's error. */
function observe(promise: unknown, call: RecordedCall, shape: ReplyShape, route: StainlessRoute): void {
  const props = responsePropsOf(promise);
  if (props === undefined) {
    // An SDK release that hides its response: the call is recorded without its reply.
    call.end(null, { "relaytrace.reply_unrecorded": "the SDK's HTTP response could not be read" });
    return;
  }
  props.then(
    (answer) => {
      const response = answer?.response;
      if (!isResponse(response)) {
        call.end(null, { "relaytrace.reply_unrecorded": "the SDK's HTTP response could not be read" });
        return;
      }
      let copy: Response;
      try {
        copy = response.clone();
      } catch {
        call.end(null, { "relaytrace.reply_unrecorded": "the HTTP response had been read before relaytrace could copy it" });
        return;
      }
      void recordReply(call, copy, shape);
    },
    (error: unknown) => failWithSdkError(call, error, shape.signal, route.errorBody),
  );
}

/**
 * The traced form of `original` (`create(body, options?)`): one `llm` scope (an `embedder` scope
 * for embeddings) per call, the request body as the SDK sends it, the reply through the dialect's
 * codec. Without a subscriber at the call's position it is the original call, nothing more.
 */
export function tracedStainlessMethod(
  original: (this: unknown, ...args: unknown[]) => unknown,
  route: StainlessRoute,
  settings: CallSettings,
  baseUrlOf: () => unknown,
): (this: unknown, ...args: unknown[]) => unknown {
  return function traced(this: unknown, ...args: unknown[]): unknown {
    const [body, options] = args;
    const runtime = settings.runtime();
    if (!isObject(body) || !runtime.isRecording()) return original.apply(this, args);
    const stream = body["stream"] === true;
    const start: CallStart = {
      name: settings.name ?? route.route,
      body: settings.captureContent ? body : contentFreeRequest(route.dialect, body),
      headers: headerRecord(isObject(options) ? options["headers"] : undefined),
      stream,
      ...(typeof body["model"] === "string" ? { model: body["model"] } : {}),
      ...(route.codec !== undefined ? { dataSchema: route.codec.schema } : {}),
    };
    const server = serverOf(baseUrlOf());
    if (server !== undefined) start.server = server;
    let call: RecordedCall;
    try {
      call = route.dialect === "embeddings" ? recordEmbeddingsCall(runtime, start) : recordLlmCall(runtime, start);
    } catch {
      return original.apply(this, args); // telemetry never breaks the app
    }
    const signal = signalOf(options);
    const extra = call.traceHeaders();
    // Options the SDK resolves later (a promise) are passed on as they are.
    const sent =
      Object.keys(extra).length === 0 || (options !== undefined && !isObject(options)) ? options : withTraceHeaders(options, extra);
    let promise: unknown;
    try {
      promise = call.within(() => original.call(this, body, sent, ...args.slice(2)));
    } catch (error) {
      failWithSdkError(call, error, signal, route.errorBody);
      throw error;
    }
    const shape: ReplyShape = { codec: route.codec, captureContent: settings.captureContent };
    if (route.transform !== undefined) shape.transform = route.transform;
    if (signal !== undefined) shape.signal = signal;
    try {
      observe(promise, call, shape, route);
    } catch {
      call.end(null);
    }
    return promise;
  };
}

function withTraceHeaders(options: unknown, extra: Record<string, string>): unknown {
  const base = isObject(options) ? options : {};
  return { ...base, headers: withHeaders(base["headers"], extra) };
}
