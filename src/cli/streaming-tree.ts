import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { spanIdFromUuid } from "../../exporters/otel/ids.js";
import { microsOf } from "../../exporters/testing/snapshot.js";
import { DEFAULT_TREE_ATTRIBUTES, toTree } from "../../exporters/testing/tree.js";
import { parseTimestamp } from "../events/timestamp.js";
import type { AtofEvent } from "../events/types.js";

/**
 * Finished spans kept after their tree is complete, so that a late child (a pending mark, a
 * resumed run, an end after its parent's) still lands under its parent: trees are printed only
 * once more than this many spans wait.
 */
export const LATE_CHILD_WINDOW = 4096;
/** Past this many waiting spans, complete trees are printed even while an earlier-started root is still open. */
export const MAX_WAITING_SPANS = 65_536;

/** What the tree prints of a span, and nothing else (no payload attributes). */
interface TreeNode {
  span: ReadableSpan;
  id: string;
  seq: number;
  startUs: number;
  group?: TreeGroup;
}

/** Spans joined by parentage; a root group's top has no parent in the input (so far). */
interface TreeGroup {
  top: TreeNode;
  nodes: TreeNode[];
  root: boolean;
  /** Set once merged into another group (its spans' group pointers are updated lazily). */
  mergedInto?: TreeGroup;
}

/** The group a span is in now, shortening the path for next time. */
function groupOf(node: TreeNode): TreeGroup {
  let group = node.group!;
  while (group.mergedInto) group = group.mergedInto;
  node.group = group;
  return group;
}

/** The few fields `toTree` reads, copied out of a finished span so its payload attributes can go. */
function compact(span: ReadableSpan): ReadableSpan {
  const { spanId } = span.spanContext();
  const attributes: Attributes = {};
  for (const key of DEFAULT_TREE_ATTRIBUTES) {
    const value = span.attributes[key];
    if (value !== undefined) attributes[key] = value;
  }
  const parent = span.parentSpanContext;
  const shim = {
    name: span.name,
    kind: span.kind,
    status: { code: span.status.code },
    startTime: span.startTime,
    endTime: span.endTime,
    parentSpanContext: parent ? { traceId: "", spanId: parent.spanId, traceFlags: 0, isRemote: parent.isRemote === true } : undefined,
    attributes,
    events: span.events.map((e) => ({ name: e.name, time: e.time })),
    spanContext: () => ({ traceId: "", spanId, traceFlags: 0 }),
  };
  return shim as unknown as ReadableSpan; // toTree reads only these fields
}

const byStart = (a: TreeGroup, b: TreeGroup) =>
  a.top.startUs - b.top.startUs || a.top.span.name.localeCompare(b.top.span.name) || a.top.seq - b.top.seq;

/**
 * `toTree` of a span stream, printed one root's tree at a time as soon as it is complete, in the
 * order (start time, name) `toTree` of all spans gives. Holds a compact record per span of trees
 * still open (plus LATE_CHILD_WINDOW finished ones) and one entry per open scope, never payloads.
 * Feed the events through `watch` (open scopes) and the projection's batches to `add`.
 */
export class StreamingTree {
  private readonly nodes = new Map<string, TreeNode>();
  private readonly waiting = new Map<string, TreeGroup[]>();
  private roots: TreeGroup[] = [];
  /** Span id → start time of scopes started and not ended, in start order (the input is in time order). */
  private readonly open = new Map<string, number>();
  private nowUs = -Infinity;
  private seq = 0;

  constructor(private readonly print: (tree: string) => void) {}

  /** Passes the events through, noting which scopes are open. */
  async *watch(events: AsyncIterable<AtofEvent>): AsyncGenerator<AtofEvent> {
    for await (const event of events) {
      const us = parseTimestamp(event.timestamp);
      if (us > this.nowUs) this.nowUs = us;
      if (event.kind === "scope") {
        const id = spanIdFromUuid(event.uuid);
        if (event.scope_category === "start") {
          if (!this.open.has(id)) this.open.set(id, us);
        } else {
          this.open.delete(id);
        }
      }
      yield event;
    }
  }

  /** One batch of finished spans (export order); prints the trees it completes. */
  add(batch: readonly ReadableSpan[]): void {
    const fresh: { node: TreeNode; parentId: string | undefined }[] = [];
    for (const span of batch) {
      const node: TreeNode = { span: compact(span), id: span.spanContext().spanId, seq: this.seq++, startUs: microsOf(span.startTime) };
      this.nodes.set(node.id, node);
      fresh.push({ node, parentId: span.parentSpanContext?.spanId });
    }
    for (const { node, parentId } of fresh) this.place(node, parentId);
    this.release(false);
  }

  /** After the last batch: prints every tree still held. */
  end(): void {
    this.open.clear();
    for (const groups of this.waiting.values()) for (const g of groups) this.becomeRoot(g);
    this.waiting.clear();
    this.release(true);
  }

  private place(node: TreeNode, parentId: string | undefined): void {
    const parent = parentId === undefined ? undefined : this.nodes.get(parentId);
    if (parent?.group) {
      const group = groupOf(parent);
      group.nodes.push(node);
      node.group = group;
    } else {
      const group: TreeGroup = { top: node, nodes: [node], root: false };
      node.group = group;
      if (parentId !== undefined && (parent !== undefined || this.open.has(parentId))) {
        // The parent comes later in this batch, or is still open: wait for it.
        const list = this.waiting.get(parentId);
        if (list) list.push(group);
        else this.waiting.set(parentId, [group]);
      } else {
        this.becomeRoot(group); // no parent, a remote one, or one printed long ago
      }
    }
    const children = this.waiting.get(node.id);
    if (children) {
      this.waiting.delete(node.id);
      for (const child of children) this.adopt(groupOf(node), child);
    }
  }

  /** Moves the smaller group's spans into the larger's array (linear overall, however deep the nesting); `into` stays the group. */
  private adopt(into: TreeGroup, child: TreeGroup): void {
    if (into.nodes.length >= child.nodes.length) {
      for (const n of child.nodes) {
        n.group = into;
        into.nodes.push(n);
      }
    } else {
      const mine = into.nodes;
      into.nodes = child.nodes; // their group pointers reach `into` through mergedInto
      for (const n of mine) into.nodes.push(n);
    }
    child.nodes = [];
    child.mergedInto = into;
  }

  private becomeRoot(group: TreeGroup): void {
    group.root = true;
    this.roots.push(group);
  }

  private release(all: boolean): void {
    if (!all && this.nodes.size <= LATE_CHILD_WINDOW) return;
    this.roots.sort(byStart);
    const firstOpen = this.open.values().next();
    const openSince = firstOpen.done ? Infinity : firstOpen.value;
    let printed = 0;
    for (const group of this.roots) {
      if (!all) {
        if (this.nodes.size <= LATE_CHILD_WINDOW) break;
        const settled = group.top.startUs < openSince && group.top.startUs < this.nowUs;
        if (!settled && this.nodes.size <= MAX_WAITING_SPANS) break;
      }
      const spans = group.nodes.sort((a, b) => a.seq - b.seq);
      for (const n of spans) this.nodes.delete(n.id);
      this.print(
        toTree(
          spans.map((n) => n.span),
          { durations: true },
        ),
      );
      printed++;
    }
    this.roots = this.roots.slice(printed);
  }
}
