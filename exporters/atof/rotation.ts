import { readdirSync, unlinkSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { claimWriter } from "./writer-claim.js";

/** When a rotating file sink starts a new file, and how many closed ones it keeps. */
export interface AtofRotateOptions {
  /** Start a new file before a line would take the current one past this many bytes (a longer line gets a file of its own). */
  maxBytes?: number;
  /** Start a new file at the first write once the current one is older than this (checked at write time, no timer). */
  maxAgeMs?: number;
  /** Keep at most this many closed files of the set besides the current one; the oldest are removed first. Default: all. */
  keep?: number;
}

/** Milliseconds since the epoch; injectable so tests can age a file without waiting. */
export type Clock = () => number;

/** Length of a file's start time in its name: `20260301T120000123Z` (UTC, to the millisecond). */
const STAMP_LENGTH = 19;
const STAMP = /^\d{8}T\d{9}Z$/;

function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "");
}

function msOf(stamp: string): number {
  const at = (from: number, to: number) => stamp.slice(from, to);
  return Date.parse(`${at(0, 4)}-${at(4, 6)}-${at(6, 8)}T${at(9, 11)}:${at(11, 13)}:${at(13, 15)}.${at(15, 18)}Z`);
}

/**
 * The names of one set of rotated files, `<stem>.<UTC start time to the ms><extension>`
 * (`relaytrace-atof.20260301T120000123Z.jsonl`): fixed-width times, so plain string order is
 * write order. Each name is later than every name of the set already in the directory, so a
 * restarted process (or a clock set back) still sorts after what was written before. Only names
 * of exactly this shape belong to the set: nothing else in the directory is ever removed.
 */
export class RotatedFileSet {
  readonly directory: string;
  private readonly stem: string;
  private readonly extension: string;
  private lastMs: number | undefined;

  /** `nominalPath` is the path the sink would write without rotation: its name without the extension is the stem. */
  constructor(
    nominalPath: string,
    readonly options: AtofRotateOptions,
    readonly now: Clock,
  ) {
    this.directory = dirname(nominalPath);
    const name = basename(nominalPath);
    this.extension = extname(name);
    this.stem = name.slice(0, name.length - this.extension.length);
  }

  /** The next file's path: named for now, or a millisecond after the set's newest file. */
  nextPath(): string {
    if (this.lastMs === undefined) {
      const newest = this.files().at(-1);
      this.lastMs = newest === undefined ? -Infinity : msOf(newest.slice(this.stem.length + 1, this.stem.length + 1 + STAMP_LENGTH));
    }
    const ms = Math.max(Math.floor(this.now()), this.lastMs + 1);
    this.lastMs = ms;
    return join(this.directory, `${this.stem}.${stampOf(ms)}${this.extension}`);
  }

  /** The set's file names in the directory, oldest first (none when the directory does not exist). */
  files(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.directory);
    } catch {
      return [];
    }
    const prefix = `${this.stem}.`;
    return names
      .filter(
        (name) =>
          name.length === prefix.length + STAMP_LENGTH + this.extension.length &&
          name.startsWith(prefix) &&
          name.endsWith(this.extension) &&
          STAMP.test(name.slice(prefix.length, prefix.length + STAMP_LENGTH)),
      )
      .sort();
  }

  /**
   * Removes the oldest closed files of the set past `keep`, `current` aside. A file is closed
   * when its writer claim can be taken (the claim rules of shared output): one another live
   * process still writes is neither counted nor removed. Returns the failures' messages.
   */
  removeOld(current: string): string[] {
    const keep = this.options.keep;
    if (keep === undefined) return [];
    const others = this.files().filter((name) => join(this.directory, name) !== current);
    let excess = others.length - keep;
    const failures: string[] = [];
    for (const name of others) {
      if (excess <= 0) break;
      const path = join(this.directory, name);
      const outcome = claimWriter(path);
      if (outcome.status === "held") {
        excess--; // another writer's current file: not a closed one
        continue;
      }
      try {
        unlinkSync(path);
        excess--;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") excess--;
        else failures.push(`remove ${path}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        if (outcome.status === "claimed") outcome.claim.release();
      }
    }
    return failures;
  }
}
