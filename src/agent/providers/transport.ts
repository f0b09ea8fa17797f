import type { Dispatcher } from "undici";
import {
  isRetryableStatus,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderResponseError,
  ProviderTimeoutError,
  preview,
} from "./errors.js";
import { mergeHeaders, scrubCredentials } from "./headers.js";
import { abortableSleep, backoffMs, headerValue, retryAfterMs } from "./retry-policy.js";
import { parseSse } from "./sse.js";
import { redactUrl, splitUserinfo } from "../../wire/urls.js";
import type { SseEvent } from "./types.js";
import { errorText, flatHeaders, requestBody, send, type Reply } from "./http-send.js";

/** Passed to `onRetry` before each retry sleep (the loop turns it into an `llm.retry` mark). */
export interface RetryInfo {
  /** 0-based index of the attempt that failed */
  attempt: number;
  status?: number;
  error?: string;
  delayMs: number;
}

export interface PostOptions {
  url: string;
  headers?: Record<string, string>;
  /** serialized with JSON.stringify */
  body: unknown;
  signal?: AbortSignal;
  /** extra attempts after the first (default 2) */
  retries?: number;
  /** backoff base in ms (default 500) */
  retryBaseMs?: number;
  /**
   * Deadline for the whole call, retries and stream included; never retried. Default
   * {@link DEFAULT_CALL_TIMEOUT_MS}; 0 turns it off (then only the caller's signal ends a call).
   */
  timeoutMs?: number;
  /** Largest reply body accepted, in bytes (a stream counts all its bytes). Default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  onRetry?: (info: RetryInfo) => void;
  /**
   * Decides after each failed attempt (aborts excluded) whether to try again; `"retry"` is still
   * bounded by `retries`. Default: `retryable ? "retry" : "fail"`. A throw rejects the call with it.
   */
  onError?: (info: AttemptFailure) => "retry" | "fail";
}

/** What `onError` sees about one failed attempt. */
export interface AttemptFailure {
  /** a transport failure (connection refused or reset, unreadable reply); absent when the provider answered */
  error?: unknown;
  /** HTTP status of a non-2xx answer; absent on a transport failure */
  status?: number;
  /** 0-based index of the attempt that failed */
  attempt: number;
  /** 429/500/502/503/504/529 and network errors */
  retryable: boolean;
}

export interface PostJsonResult {
  status: number;
  json: unknown;
  headers: Record<string, string>;
  attempts: number;
}

/** A 2xx event-stream reply: iterate it (once) for its SSE events. */
export interface StreamResponse extends AsyncIterable<SseEvent> {
  status: number;
  headers: Record<string, string>;
  attempts: number;
  events: AsyncIterable<SseEvent>;
}

/** A provider call that has not finished after 10 minutes fails with ProviderTimeoutError. */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;
/** A reply larger than 64 MiB fails with ProviderResponseError instead of being buffered. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

interface CallContext {
  /** the URL as it may be shown: userinfo and query values redacted */
  url: string;
  maxResponseBytes: number;
  callerSignal?: AbortSignal;
  timeoutSignal?: AbortSignal;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Aborts surface as the caller's own reason, our deadline as ProviderTimeoutError; both are final. */
function abortFailure(ctx: CallContext): unknown {
  if (ctx.callerSignal?.aborted) return ctx.callerSignal.reason;
  if (ctx.timeoutSignal?.aborted) return new ProviderTimeoutError(ctx.timeoutMs ?? 0);
  return undefined;
}

function makeContext(opts: PostOptions): CallContext {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const ctx: CallContext = {
    url: redactUrl(opts.url),
    maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    callerSignal: opts.signal,
    timeoutMs,
  };
  if (timeoutMs > 0) ctx.timeoutSignal = AbortSignal.timeout(timeoutMs);
  const signals = [ctx.callerSignal, ctx.timeoutSignal].filter((s): s is AbortSignal => s !== undefined);
  ctx.signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  return ctx;
}

async function readBody(res: Reply, ctx: CallContext): Promise<string> {
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      received += buf.length;
      if (received > ctx.maxResponseBytes) throw tooLarge(ctx);
      chunks.push(buf);
    }
  } catch (err) {
    if (err instanceof ProviderResponseError) {
      res.body.destroy();
      throw err;
    }
    throw (
      abortFailure(ctx) ??
      new ProviderConnectionError(
        `connection closed while reading the LLM reply from ${ctx.url} ` +
          `(status ${res.statusCode}, ${received} bytes received): ${errorText(err)}`,
        { cause: err },
      )
    );
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(ctx: CallContext): ProviderResponseError {
  return new ProviderResponseError(
    `LLM reply from ${ctx.url} exceeds maxResponseBytes (${ctx.maxResponseBytes} bytes); ` +
      "raise the client's maxResponseBytes if this reply is expected",
  );
}

/** A bad URL or option is not a network failure: retrying cannot help. */
function isCallerMistake(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof TypeError || code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_URL";
}

function serialize(body: unknown): string | Uint8Array {
  try {
    return requestBody(body);
  } catch (err) {
    throw new TypeError(`LLM request body is not JSON-serializable: ${errorText(err)}`, { cause: err });
  }
}

/** `onError`'s verdict (default: retry what is retryable). */
function decideAfterFailure(
  opts: PostOptions,
  failure: { status?: number; retryable: boolean; final: Error },
  attempt: number,
): "retry" | "fail" {
  if (!opts.onError) return failure.retryable ? "retry" : "fail";
  // A provider answer carries its status; only a transport failure carries an error.
  const info: AttemptFailure =
    failure.status !== undefined
      ? { status: failure.status, attempt, retryable: failure.retryable }
      : { error: failure.final, attempt, retryable: failure.retryable };
  return opts.onError(info) === "retry" ? "retry" : "fail";
}

/**
 * Sends the POST, retrying 429/500/502/503/504/529 and network errors with backoff (or Retry-After).
 * Resolves with the first 2xx response, body unread; the final failure is thrown.
 */
async function sendWithRetries(opts: PostOptions, ctx: CallContext, accept: string): Promise<{ res: Reply; attempts: number }> {
  const retries = Math.max(0, opts.retries ?? 2);
  const retryBaseMs = Math.max(0, opts.retryBaseMs ?? 500);
  // userinfo never travels inside the URL: it becomes Basic credentials unless the caller set some.
  const { url, basicAuth } = splitUserinfo(opts.url);
  const auth =
    basicAuth !== undefined && headerValue(opts.headers ?? {}, "authorization") === undefined ? { authorization: basicAuth } : undefined;
  const headers = mergeHeaders({ "content-type": "application/json", accept }, auth, opts.headers);
  const payload = serialize(opts.body);

  for (let attempt = 0; ; attempt++) {
    let failure: { status?: number; error?: string; retryAfter?: number; retryable: boolean; final: Error };
    try {
      const res = await send(url, { headers, body: payload, signal: ctx.signal, dispatcher: opts.dispatcher });
      if (res.statusCode >= 200 && res.statusCode < 300) return { res, attempts: attempt + 1 };
      const text = await readBody(res, ctx).catch((err: unknown) => {
        if (abortFailure(ctx) !== undefined) throw err;
        return "";
      });
      // A provider may echo the key in its error body; the message reaches spans and diagnostics.
      const final = new ProviderHttpError(res.statusCode, scrubCredentials(text, headers));
      const retryAfter = retryAfterMs(headerValue(res.headers, "retry-after"));
      failure = { status: res.statusCode, retryable: isRetryableStatus(res.statusCode), final };
      if (retryAfter !== undefined) failure.retryAfter = retryAfter;
    } catch (err) {
      const aborted = abortFailure(ctx);
      if (aborted !== undefined) throw aborted;
      if (err instanceof ProviderConnectionError) throw err;
      if (isCallerMistake(err)) {
        const final = new ProviderError("invalid_request", `LLM request to ${ctx.url} could not be sent: ${errorText(err)}`, {
          cause: err,
        });
        failure = { error: errorText(err), retryable: false, final };
      } else {
        const message = `LLM request to ${ctx.url} failed: ${errorText(err)}`;
        failure = { error: errorText(err), retryable: true, final: new ProviderConnectionError(message, { retryable: true, cause: err }) };
      }
    }
    const decision = decideAfterFailure(opts, failure, attempt);
    if (attempt >= retries || decision === "fail") throw failure.final;
    const delayMs = failure.retryAfter ?? backoffMs(retryBaseMs, attempt);
    try {
      opts.onRetry?.({ attempt, ...(failure.status !== undefined ? { status: failure.status } : { error: failure.error }), delayMs });
    } catch {
      // A telemetry callback never changes the call's outcome.
    }
    try {
      await abortableSleep(delayMs, ctx.signal);
    } catch (err) {
      throw abortFailure(ctx) ?? err;
    }
  }
}

/** POSTs JSON and returns the decoded JSON reply (with retries). */
export async function postJson(opts: PostOptions): Promise<PostJsonResult> {
  const ctx = makeContext(opts);
  const { res, attempts } = await sendWithRetries(opts, ctx, "application/json");
  const text = await readBody(res, ctx);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ProviderResponseError(
      `LLM reply (status ${res.statusCode}) is not JSON: ` +
        (text.trim() === "" ? "<empty body>" : preview(scrubCredentials(text, opts.headers))),
      { cause },
    );
  }
  return { status: res.statusCode, json, headers: flatHeaders(res.headers), attempts };
}

async function* guardedBody(res: Reply, ctx: CallContext): AsyncGenerator<Uint8Array | string, void> {
  let finished = false;
  let received = 0;
  try {
    for await (const chunk of res.body) {
      received += typeof chunk === "string" ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
      if (received > ctx.maxResponseBytes) throw tooLarge(ctx);
      yield chunk as Uint8Array | string;
    }
    finished = true;
  } catch (err) {
    if (err instanceof ProviderResponseError) throw err;
    throw abortFailure(ctx) ?? new ProviderConnectionError(`LLM stream from ${ctx.url} was cut off: ${errorText(err)}`, { cause: err });
  } finally {
    // The consumer stopped early (end marker seen, or it broke out): release the socket.
    if (!finished) res.body.destroy();
  }
}

/** POSTs JSON and returns the reply's SSE events. Retries happen only before the first body byte. */
export async function postStream(opts: PostOptions): Promise<StreamResponse> {
  const ctx = makeContext(opts);
  const { res, attempts } = await sendWithRetries(opts, ctx, "text/event-stream");
  const contentType = headerValue(res.headers, "content-type") ?? "";
  if (contentType.includes("application/json")) {
    // The provider ignored `stream: true` or sent an error envelope with a 2xx status.
    const text = await readBody(res, ctx);
    throw new ProviderResponseError(
      `expected an event stream from ${ctx.url} but the reply is JSON: ${preview(scrubCredentials(text, opts.headers))}`,
    );
  }
  let used = false;
  const events: AsyncIterable<SseEvent> = {
    [Symbol.asyncIterator]() {
      if (used) throw new TypeError("an LLM stream can be iterated only once");
      used = true;
      return parseSse(guardedBody(res, ctx))[Symbol.asyncIterator]();
    },
  };
  return {
    status: res.statusCode,
    headers: flatHeaders(res.headers),
    attempts,
    events,
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
  };
}
