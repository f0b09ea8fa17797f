import type { HrTime } from "@opentelemetry/api";
import { otelIdHex as idHex } from "../../src/events/otel-ids.js";

export { idHex };

/** Trace id: the trace-root uuid as 32 hex digits (see idHex), so re-exporting the same events gives the same ids. */
export function traceIdFromUuid(uuid: string): string {
  return idHex(uuid);
}

/** Span id: the last 8 bytes of the uuid. */
export function spanIdFromUuid(uuid: string): string {
  return idHex(uuid).slice(16);
}

/** Epoch microseconds → exact `[seconds, nanos]`. */
export function hrTimeFromMicros(us: number): HrTime {
  const seconds = Math.floor(us / 1_000_000);
  return [seconds, (us - seconds * 1_000_000) * 1000];
}
