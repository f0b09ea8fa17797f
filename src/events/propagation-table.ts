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

/** What a remote W3C parent said about its trace besides the ids: the sampled flag and `tracestate`. */
export interface PropagatedTraceLink {
  /** W3C trace flags; only the sampled bit (1) is meaningful. */
  traceFlags: number;
  tracestate?: string;
}

const LINKS_KEY = Symbol.for("relaytrace.propagatedTraceLinks");
const linkHolder = globalThis as unknown as Record<symbol, Map<string, PropagatedTraceLink> | undefined>;
const links: Map<string, PropagatedTraceLink> = linkHolder[LINKS_KEY] ?? (linkHolder[LINKS_KEY] = new Map());

/**
 * Records the flags and trace state of the remote trace rooted at `rootUuid`, so the spans and
 * outgoing headers of work continuing it keep the caller's sampling decision and `tracestate`.
 */
export function recordPropagatedLink(rootUuid: string, link: PropagatedTraceLink): void {
  links.delete(rootUuid);
  links.set(rootUuid, link);
  if (links.size > MAX_ENTRIES) links.delete(links.keys().next().value!);
}

/** The flags and trace state recorded for the remote trace rooted at `rootUuid`, if any. */
export function propagatedLinkOf(rootUuid: string): PropagatedTraceLink | undefined {
  return links.get(rootUuid);
}
