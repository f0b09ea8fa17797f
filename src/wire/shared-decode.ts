import type { Json } from "../events/json.js";
import type { WireCodec, WireRequest, WireResponse } from "./types.js";

/**
 * Decodes of frozen bodies, remembered per body object. A delivered `llm` event is deep-frozen
 * and the same object reaches every subscriber, so the ATIF builder and each OTel projection
 * can share one decode of its request or reply instead of each decoding it again (a long
 * conversation's request holds the whole transcript). Unfrozen bodies are decoded every time:
 * they could change between two reads. The decoded shape is shared: readers must not mutate it.
 */
interface Remembered<T> {
  codec: WireCodec;
  value: T;
}

const requests = new WeakMap<object, Remembered<WireRequest>>();
const responses = new WeakMap<object, Remembered<WireResponse>>();

function shared<T>(memo: WeakMap<object, Remembered<T>>, codec: WireCodec, body: Json, decode: () => T): T {
  if (typeof body !== "object" || body === null || !Object.isFrozen(body)) return decode();
  const hit = memo.get(body);
  if (hit !== undefined && hit.codec === codec) return hit.value;
  const value = decode();
  memo.set(body, { codec, value });
  return value;
}

/** `codec.decodeRequest(body)`, decoded once per frozen body. */
export function sharedDecodeRequest(codec: WireCodec, body: Json): WireRequest {
  return shared(requests, codec, body, () => codec.decodeRequest(body));
}

/** `codec.decodeResponse(body)` (lenient), decoded once per frozen body. */
export function sharedDecodeResponse(codec: WireCodec, body: Json): WireResponse {
  return shared(responses, codec, body, () => codec.decodeResponse(body));
}
