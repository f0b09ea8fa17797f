import type { AtofEvent } from "../../src/events/types.js";
import { uuidv7 } from "../../src/events/uuid.js";
import type { Runtime } from "../../src/runtime/runtime.js";

/**
 * A uuid v7-shaped root id whose OpenTelemetry trace id ends with `random` (14 hex digits): the
 * 56 bits tail sampling reads its randomness from. `ffffffffffffff` is kept at any ratio above 0,
 * `00000000000001` dropped at any ratio below 1.
 */
export function rootIdEndingWith(random: string): string {
  if (!/^[0-9a-f]{14}$/.test(random)) throw new Error(`14 hex digits expected, got ${random}`);
  return `01900000-0000-7000-80${random.slice(0, 2)}-${random.slice(2)}`;
}

/** Kept at any ratio above 0. */
export const KEPT_ROOT_RANDOM = "ffffffffffffff";
/** Dropped at any ratio below 1. */
export const DROPPED_ROOT_RANDOM = "00000000000001";

/** An `idGenerator` that hands out the ids given to `next` first (a root's uuid, say), then fresh uuid v7s. */
export function scriptedIds(...first: string[]): { idGenerator: () => string; next(...ids: string[]): void } {
  const queue = [...first];
  return { idGenerator: () => queue.shift() ?? uuidv7(), next: (...ids) => void queue.push(...ids) };
}

/** A seeded generator of 14-hex-digit randomness (xorshift32), so a test's ids are the same on every run. */
export function seededRandomHex(seed: number): () => string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  return () => (next().toString(16).padStart(8, "0") + next().toString(16).padStart(8, "0")).slice(0, 14);
}

/** One root scope with a tool call and a mark inside; `body` adds more. */
export async function run(rt: Runtime, name: string, body: () => unknown = () => undefined): Promise<void> {
  await rt.withScope(
    name,
    async () => {
      await rt.executeTool("lookup", { q: 1 }, () => ({ result: "ok" }));
      rt.mark("step");
      await body();
    },
    { category: "agent" },
  );
}

/** The events of a trace, without the metric marks that report sampling's drops. */
export const traceEvents = (events: AtofEvent[]): AtofEvent[] =>
  events.filter((e) => e.data_schema?.name !== "nemo.relay.metric_measurements");
