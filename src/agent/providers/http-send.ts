import type * as Undici from "undici";
import type { Dispatcher } from "undici";
import { recurringJsonPieces } from "../../events/json-text.js";
import { redactUrlsInText } from "../../wire/urls.js";

// One HTTP POST to a provider, and the body it carries: undici on Node, global fetch where undici
// cannot load. Retries, deadlines and reading the reply are transport.ts's.

export type RawHeaders = Record<string, string | string[] | undefined>;

/** A reply whose body is not read yet: undici's, or global fetch's in the same shape. */
export interface Reply {
  statusCode: number;
  headers: RawHeaders;
  body: AsyncIterable<unknown> & { destroy(): unknown };
}

export interface SendInit {
  headers: Record<string, string>;
  body: string | Uint8Array;
  signal: AbortSignal | undefined;
  dispatcher: Dispatcher | undefined;
}

// undici is loaded on first use, by a name bundlers do not follow: on Node it carries provider
// calls (dispatchers, its instrumentation); where it cannot load (Cloudflare Workers) global
// `fetch` does. What is kept is the outcome, never the promise of it: on Workers a promise made
// in one request and awaited in another ties the two requests together.
const UNDICI = "undici";
/** undici's `request`; null once it could not load; undefined until the first load settles. */
let undiciRequest: typeof Undici.request | null | undefined;

async function loadUndici(): Promise<typeof Undici.request | undefined> {
  if (undiciRequest === undefined) {
    const loaded = await (import(UNDICI) as Promise<typeof Undici>).then(
      (module) => module.request,
      () => null,
    );
    undiciRequest ??= loaded;
  }
  return undiciRequest ?? undefined;
}

/** One POST, no retry: a network failure rejects, a reply of any status resolves. */
export async function send(url: string, init: SendInit): Promise<Reply> {
  const request = await loadUndici();
  if (request !== undefined) return request(url, { method: "POST", ...init });
  new URL(url); // a bad URL is the caller's mistake (TypeError), not a network failure
  let res: Response;
  try {
    res = await fetch(url, { method: "POST", headers: init.headers, body: init.body, signal: init.signal ?? null });
  } catch (err) {
    if (init.signal?.aborted) throw err;
    // fetch reports a network failure as a TypeError; here it must read as one that can be retried.
    throw new Error(`fetch failed: ${errorText(err)}`, { cause: err });
  }
  return fetchReply(res);
}

function fetchReply(res: Response): Reply {
  const headers: RawHeaders = {};
  res.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const reader = res.body?.getReader();
  const body = {
    async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
      if (reader === undefined) return;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    },
    destroy(): void {
      reader?.cancel().catch(() => undefined);
    },
  };
  return { statusCode: res.status, headers, body };
}

export function flatHeaders(raw: RawHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** An error as one line, its code first, URLs redacted. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const causeCode = (err.cause as { code?: unknown } | undefined)?.code;
    const tag = typeof code === "string" ? code : typeof causeCode === "string" ? causeCode : undefined;
    const message = redactUrlsInText(err.message);
    return tag !== undefined && !message.includes(tag) ? `${tag}: ${message}` : message;
  }
  return redactUrlsInText(String(err));
}

/** Request bodies longer than this (in UTF-16 code units) are sent as bytes copied from their pieces. */
const BODY_AS_TEXT_MAX_LENGTH = 16 * 1024;

/**
 * The bytes (or text) of a JSON request body. Throws what `JSON.stringify` would (a cycle, a
 * BigInt).
 */
export function requestBody(body: unknown): string | Uint8Array {
  if (typeof body === "string") return body;
  const pieces: string[] = [];
  // The transcript's messages recur from call to call: their texts are written once per run.
  recurringJsonPieces(body, pieces);
  let length = 0;
  for (const piece of pieces) length += piece.length;
  if (length <= BODY_AS_TEXT_MAX_LENGTH) return pieces.join("");
  // A late turn's body is hundreds of KB: as one string V8 would allocate it outside its young
  // generation on every call, only for it to be encoded once. Its pieces are copied straight
  // into the bytes sent.
  let bytes = 0;
  for (const piece of pieces) bytes += Buffer.byteLength(piece, "utf8");
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const piece of pieces) at += out.write(piece, at, "utf8");
  return out;
}
