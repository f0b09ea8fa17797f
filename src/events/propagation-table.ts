/**
 * Process-wide tables of propagated work: `parent_uuid -> root_uuid` for work continued from a
 * rooted propagation context (OTel exporters read it to build remote parent span contexts), and
 * `root_uuid ->` the remote W3C parent's flags and trace state. Kept under global symbols so
 * duplicated package copies share them; bounded (oldest entry out) so they cannot grow forever.
 */
const MAX_ENTRIES = 4096;

interface SharedTable<V> {
  set(key: string, value: V): void;
  get(key: string): V | undefined;
}

function sharedTable<V>(name: string): SharedTable<V> {
  const key = Symbol.for(name);
  const holder = globalThis as unknown as Record<symbol, Map<string, V> | undefined>;
  const table: Map<string, V> = holder[key] ?? (holder[key] = new Map());
  return {
    set(k, value) {
      table.delete(k);
      table.set(k, value);
      if (table.size > MAX_ENTRIES) table.delete(table.keys().next().value!);
    },
    get: (k) => table.get(k),
  };
}

const parents = sharedTable<string>("relaytrace.propagatedParents");

export function recordPropagatedParent(parentUuid: string, rootUuid: string): void {
  parents.set(parentUuid, rootUuid);
}

/** The propagated root uuid recorded for `parentUuid`, if any. */
export function propagatedRootOf(parentUuid: string): string | undefined {
  return parents.get(parentUuid);
}

/** What a remote W3C parent said about its trace besides the ids: the sampled flag and `tracestate`. */
export interface PropagatedTraceLink {
  /** W3C trace flags; only the sampled bit (1) is meaningful. */
  traceFlags: number;
  tracestate?: string;
}

const links = sharedTable<PropagatedTraceLink>("relaytrace.propagatedTraceLinks");

/**
 * Records the flags and trace state of the remote trace rooted at `rootUuid`, so the spans and
 * outgoing headers of work continuing it keep the caller's sampling decision and `tracestate`.
 */
export function recordPropagatedLink(rootUuid: string, link: PropagatedTraceLink): void {
  links.set(rootUuid, link);
}

/** The flags and trace state recorded for the remote trace rooted at `rootUuid`, if any. */
export function propagatedLinkOf(rootUuid: string): PropagatedTraceLink | undefined {
  return links.get(rootUuid);
}
