import { traceLinkOf } from "../events/trace-link.js";
import type { AtofEvent } from "../events/types.js";

const DEFAULT_LIMIT = 50_000;

/**
 * Learns which trace each event belongs to from the events themselves (the sanitizer sees them in
 * emission order): an event whose parent we saw inherits the parent's root; an event continuing a
 * propagated context takes the propagated root; anything else starts a trace of its own (as the
 * first user scope does in the OTel projections). Bounded: the oldest entries are forgotten first.
 */
export class TraceRoots {
  private readonly roots = new Map<string, string>();

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  rootOf(event: AtofEvent): string {
    const known = this.roots.get(event.uuid);
    if (known !== undefined) return known;
    const parent = event.parent_uuid;
    const root = (parent !== null ? (this.roots.get(parent) ?? traceLinkOf(event)?.rootUuid) : undefined) ?? event.uuid;
    if (event.kind === "scope") {
      this.roots.set(event.uuid, root);
      if (this.roots.size > this.limit) this.roots.delete(this.roots.keys().next().value!);
    }
    return root;
  }
}
