import { atofToAtif } from "../../exporters/atif/project.js";
import type { AtifTrajectory, AtofToAtifOptions } from "../../exporters/atif/types.js";
import type { AtofEvent } from "../events/types.js";

/** Owners of scopes of finished trees kept for runs resumed later (two generations, so bounded). */
const REMEMBERED_OWNERS = 65_536;

/** The events of one root scope's tree, collected until that root ends. */
interface Tree {
  root: string;
  events: AtofEvent[];
  /** Scope uuids of the tree, to forget them when it is mapped. */
  members: string[];
}

/**
 * `atofToAtif` over a time-ordered stream, one root scope's tree at a time: a tree's events are
 * held from its root's start until its end and the next root's start (so a mark emitted just
 * after the run ended still lands in it), then mapped and handed to `onTrajectory`; memory is
 * the events of trees still open or just finished. A run resumed in a later tree still refers
 * back to the trajectory it continues (its owner is remembered). An event that arrives after its
 * tree was mapped has no tree: it is counted in `late`, not mapped.
 */
export class TrajectoryStream {
  private readonly trees = new Map<string, Tree>();
  /** Trees whose root ended, mapped when the next root starts (or at the end). */
  private finished: Tree[] = [];
  /** Scope uuid → its tree, for trees still open. */
  private readonly treeOf = new Map<string, Tree>();
  /** Scope uuid → the nearest enclosing boundary (its trajectory), for scopes of open trees. */
  private readonly ownerOf = new Map<string, string | undefined>();
  private recentOwners = new Map<string, string | undefined>();
  private olderOwners = new Map<string, string | undefined>();
  late = 0;

  constructor(
    private readonly options: AtofToAtifOptions & { boundaries: "agent" | "root" },
    private readonly onTrajectory: (doc: AtifTrajectory) => void | Promise<void>,
  ) {}

  async add(event: AtofEvent): Promise<void> {
    if (event.kind === "mark") {
      const tree = event.parent_uuid === null ? undefined : this.treeOf.get(event.parent_uuid);
      if (tree) tree.events.push(event);
      else if (event.parent_uuid !== null) this.late++;
      return;
    }
    let tree = this.treeOf.get(event.uuid);
    if (tree === undefined) {
      if (event.scope_category === "end") {
        this.late++;
        return; // an end whose start was never seen, or whose tree is already mapped
      }
      tree = event.parent_uuid === null ? undefined : this.treeOf.get(event.parent_uuid);
      if (tree === undefined) {
        await this.mapFinished();
        tree = { root: event.uuid, events: [], members: [] };
        this.trees.set(event.uuid, tree);
      }
      tree.members.push(event.uuid);
      this.treeOf.set(event.uuid, tree);
      const isBoundary = this.options.boundaries === "agent" ? event.category === "agent" : tree.root === event.uuid;
      this.ownerOf.set(event.uuid, isBoundary ? event.uuid : event.parent_uuid === null ? undefined : this.ownerOf.get(event.parent_uuid));
    }
    tree.events.push(event);
    if (event.scope_category === "end" && event.uuid === tree.root) {
      this.trees.delete(tree.root);
      this.finished.push(tree);
    }
  }

  /** Maps what is held: finished trees, then those whose root never ended (a crashed producer), oldest first. */
  async end(): Promise<void> {
    await this.mapFinished();
    for (const tree of [...this.trees.values()]) await this.map(tree);
  }

  private async mapFinished(): Promise<void> {
    const finished = this.finished;
    this.finished = [];
    for (const tree of finished) await this.map(tree);
  }

  private async map(tree: Tree): Promise<void> {
    this.trees.delete(tree.root);
    const docs = atofToAtif(tree.events, { ...this.options, ownerOutside: (uuid) => this.rememberedOwner(uuid) });
    for (const uuid of tree.members) {
      this.remember(uuid, this.ownerOf.get(uuid));
      this.ownerOf.delete(uuid);
      this.treeOf.delete(uuid);
    }
    tree.events = [];
    for (const doc of docs) await this.onTrajectory(doc);
  }

  private remember(uuid: string, owner: string | undefined): void {
    if (this.recentOwners.size >= REMEMBERED_OWNERS) {
      this.olderOwners = this.recentOwners;
      this.recentOwners = new Map();
    }
    this.recentOwners.set(uuid, owner);
  }

  private rememberedOwner(uuid: string): string | undefined {
    return this.recentOwners.has(uuid) ? this.recentOwners.get(uuid) : this.olderOwners.get(uuid);
  }
}
