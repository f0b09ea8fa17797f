import type { Json } from "../events/json.js";

/**
 * What a failed managed tool call's end records as its data, keyed by the error the call
 * rejected with. The agent loop turns a tool that threw into an error result for the model; the
 * call still fails (status ERROR), and its end keeps the result the model read, so ATOF and ATIF
 * lose nothing. Internal: not part of the public API.
 */
const dataByError = new WeakMap<object, Json>();

/** Records `data` for the failed end of the call that rejects with `error` (an object). */
export function recordFailureData(error: unknown, data: Json): void {
  if (typeof error === "object" && error !== null) dataByError.set(error, data);
}

/** The data recorded for `error`, if any. */
export function failureDataOf(error: unknown): Json | undefined {
  return typeof error === "object" && error !== null ? dataByError.get(error) : undefined;
}
