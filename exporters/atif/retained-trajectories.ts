import type { AtifTrajectory } from "./types.js";

/** Default bound on the estimated bytes of the trajectories `toJSON()` keeps. */
export const DEFAULT_MAX_RETAINED_BYTES = 16 * 1024 * 1024;

/**
 * The completed trajectories an exporter keeps for `toJSON()`, newest last, bounded by count and
 * by estimated size: a long conversation's trajectory holds its whole context, so a count bound
 * alone (1,000 by default) let a process serving 50-turn runs keep hundreds of megabytes. Past
 * either bound the oldest go first; the newest is always kept, whatever its size.
 */
export class RetainedTrajectories {
  private readonly items: AtifTrajectory[] = [];
  private readonly sizes: number[] = [];
  private bytes = 0;

  constructor(
    private readonly maxCount: number,
    private readonly maxBytes: number,
  ) {}

  add(trajectory: AtifTrajectory): void {
    const size = estimatedBytes(trajectory);
    this.items.push(trajectory);
    this.sizes.push(size);
    this.bytes += size;
    // The count bound is exact (0 keeps none); the byte bound spares the newest.
    let drop = Math.max(0, this.items.length - this.maxCount);
    let bytes = this.bytes;
    for (let i = 0; i < drop; i++) bytes -= this.sizes[i]!;
    while (drop < this.items.length - 1 && bytes > this.maxBytes) bytes -= this.sizes[drop++]!;
    if (drop === 0) return;
    this.items.splice(0, drop);
    this.sizes.splice(0, drop);
    this.bytes = bytes;
  }

  /** The kept trajectories, oldest first (the exporter's own objects: copy before handing out). */
  list(): readonly AtifTrajectory[] {
    return this.items;
  }
}

/**
 * A trajectory's size as JSON text, estimated without building the text: string lengths, 8 bytes
 * for any other scalar, plus each key. Iterative (no recursion on the depth of tool arguments),
 * linear in the trajectory. Payloads shared between steps are counted each time they appear, so
 * the estimate errs on the large side, as a bound should.
 */
export function estimatedBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") bytes += item.length + 2;
    else if (item === null || typeof item !== "object") bytes += 8;
    else if (Array.isArray(item)) {
      bytes += 2;
      for (const entry of item) pending.push(entry);
    } else {
      bytes += 2;
      for (const key in item) {
        bytes += key.length + 4;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return bytes;
}
