/**
 * Process-wide table of propagated parents: `parent_uuid -> root_uuid` for work continued from a
 * rooted propagation context. OTel exporters read it to build remote parent span contexts.
 * Kept under a global symbol so duplicated package copies share it; bounded so it cannot grow forever.
 */
const KEY = Symbol.for("relaytrace.propagatedParents");
const MAX_ENTRIES = 4096;
const holder = globalThis as unknown as Record<symbol, Map<string, string> | undefined>;
const table: Map<string, string> = holder[KEY] ?? (holder[KEY] = new Map());

export function recordPropagatedParent(parentUuid: string, rootUuid: string): void {
  table.delete(parentUuid);
  table.set(parentUuid, rootUuid);
  if (table.size > MAX_ENTRIES) table.delete(table.keys().next().value!);
}

/** The propagated root uuid recorded for `parentUuid`, if any. */
export function propagatedRootOf(parentUuid: string): string | undefined {
  return table.get(parentUuid);
}
