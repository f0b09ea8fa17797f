import { isLongLived } from "../events/long-lived-json.js";
import type { DraftEvent } from "./event-stages.js";

/** What every event costs besides its payloads: its identity keys, ids and timestamp as JSON. */
const EVENT_OVERHEAD = 256;

/**
 * The size of a held event (as emitted) as JSON text, estimated without building the text: string lengths,
 * 8 bytes for any other scalar, plus each key. Iterative (no recursion on the depth of a tool's
 * arguments) and linear in the event. A long-lived tree (the agent loop's transcript, sent again
 * in every call's body) is one object in memory however many events hold it, so `seen` counts it
 * once per trace; anything else shared is counted each time, erring on the large side as a bound
 * should.
 */
export function heldEventBytes(event: DraftEvent, seen: Set<object>): number {
  let bytes = EVENT_OVERHEAD + event.name.length;
  const pending: unknown[] = [event.data, event.metadata, event.category_profile];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") bytes += item.length + 2;
    else if (item === null || typeof item !== "object") bytes += 8;
    else {
      if (isLongLived(item)) {
        if (seen.has(item)) continue;
        seen.add(item);
      }
      bytes += 2;
      if (Array.isArray(item)) {
        for (const entry of item) pending.push(entry);
      } else {
        for (const key in item) {
          bytes += key.length + 4;
          pending.push((item as Record<string, unknown>)[key]);
        }
      }
    }
  }
  return bytes;
}
