/**
 * Frozen JSON trees that recur from event to event: the runtime copied and deep-froze them
 * itself for a caller that keeps them (the agent loop's transcript messages and tool list, sent
 * again on every provider call). An event may hold such a tree as it is instead of copying it,
 * and readers may remember what they derive from one (its JSON text, its decode)
 * whatever its size, because the same object comes back in the next call's body.
 *
 * Only the runtime marks trees (after copying them into plain JSON and freezing them): nothing
 * here can tell a marked object from any other frozen one but this set.
 */
const marked = new WeakSet<object>();

/** How deep a marked tree may nest below its root: an event embedding it stays within its own depth limit. */
export const LONG_LIVED_MAX_HEIGHT = 48;

/**
 * Marks the root of a frozen JSON tree the runtime built itself (see above); readers look only
 * at the roots they meet (a body's messages, its tool list and the list's entries), so inner
 * objects are left unmarked (every entry costs the collector work).
 */
export function markLongLived(tree: object): void {
  marked.add(tree);
}

/** Whether `value` is the root of a tree the runtime marked as recurring. */
export function isLongLived(value: unknown): boolean {
  return typeof value === "object" && value !== null && marked.has(value);
}
