import type { AtofEvent } from "./types.js";

/** An ATOF line without its line end: one string, or pieces to be written one after another. */
export type AtofLine = string | readonly string[];

/**
 * What a subscriber that only writes ATOF lines takes instead of the event: the event's line, and
 * the event it was serialized from (for a writer that must rewrite an oversized line). The event
 * is the runtime's own copy, not frozen: it is read during the call only, never kept or changed.
 */
export type AtofLineReceiver = (line: AtofLine, event: AtofEvent) => void;

/**
 * Set (as a symbol property) on a subscriber callback whose only use of an event is its ATOF
 * line. When every subscriber an event reaches has one, the runtime serializes the event once,
 * on the emitting call, and hands each the line instead of a frozen copy of the event.
 */
export const ATOF_LINES: unique symbol = Symbol.for("relaytrace.atofLines");

/** A subscriber callback that may take lines (see ATOF_LINES). */
export interface LineSubscriber {
  (event: AtofEvent): void | Promise<void>;
  [ATOF_LINES]?: AtofLineReceiver;
}

/** The line receiver of a subscriber callback, if it has one; never throws. */
export function lineReceiverOf(callback: unknown): AtofLineReceiver | undefined {
  if (typeof callback !== "function") return undefined;
  try {
    const receiver: unknown = (callback as LineSubscriber)[ATOF_LINES];
    return typeof receiver === "function" ? (receiver as AtofLineReceiver) : undefined;
  } catch {
    return undefined; // a Proxy whose trap throws is an ordinary subscriber
  }
}
