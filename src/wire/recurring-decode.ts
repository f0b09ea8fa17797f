import { isLongLived } from "../events/long-lived-json.js";

/**
 * `decode` remembering its result for each long-lived message (see events/long-lived-json.ts):
 * a transcript message the agent loop froze comes back in every later request of the run, so a
 * reader that decodes each request (every OTel projection's LLM start) decodes it once. Other
 * values are decoded every time. The decoded shape is shared: readers must not mutate it.
 */
export function recurringDecoder<T>(decode: (message: unknown) => T): (message: unknown) => T {
  const decoded = new WeakMap<object, T>();
  return (message) => {
    if (!isLongLived(message)) return decode(message);
    let value = decoded.get(message as object);
    if (value === undefined) {
      value = decode(message);
      decoded.set(message as object, value);
    }
    return value;
  };
}
