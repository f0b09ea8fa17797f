import type { Exporter } from "../../src/runtime/exporter.js";
import { DiagnosticCounter, type Diagnostic } from "../../src/wire/diagnostics.js";
import { ExporterRegistrations, type ExporterRuntime } from "../exporter-runtime.js";
import { randomBytes } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { makeDirectory } from "../files/make-directory.js";
import { isSymbolicLink, refuseLinkedDirectory } from "../files/linked-directory.js";
import { safeFileNamePart } from "../files/safe-file-name.js";
import { join } from "node:path";
import type { AtofEvent } from "../../src/events/types.js";
import type { Json } from "../../src/events/json.js";
import { jsonText } from "../../src/events/json-text.js";
import { atofToAtif } from "./project.js";
import { sharingFrozenPayloads } from "./content.js";
import type { AtifAgentInfo, AtifTrajectory, AtofToAtifOptions } from "./types.js";
import { validateAtif } from "./validate.js";
import { DEFAULT_MAX_RETAINED_BYTES, RetainedTrajectories } from "./retained-trajectories.js";
import { declareOptions, is } from "../../src/events/option-spec.js";

/** Options of `AtifExporter`; unknown keys and wrong types throw a `TypeError` at construction. */
export interface AtifExporterOptions {
  /** The agent every trajectory describes (`name` and `version` are required strings). */
  agent: AtifAgentInfo;
  /** When set, each trajectory is written there as `relaytrace-atif-{trajectory_id}.json`. */
  outputDirectory?: string;
  /** Session id used when the agent scope's metadata carries no `session_id`. */
  sessionId?: string;
  /** Keep marks in `extra.marks` of the step they belong to, else of the trajectory (default true). */
  includeMarks?: boolean;
  /** Written to `extra.invocation.framework` of agent steps (default "relaytrace"). */
  framework?: string;
  /** Write into `outputDirectory` even when it is a symbolic link (default false: a link there is refused at construction). */
  followSymlinks?: boolean;
  /** How many completed trajectories `toJSON()` and written paths `files()` keep (oldest dropped first); default 1000. */
  maxRetained?: number;
  /**
   * The estimated bytes of JSON the trajectories `toJSON()` keeps may add up to (oldest dropped
   * first; the newest is always kept); default 16 MiB. Files written are not affected.
   */
  maxRetainedBytes?: number;
}

const OWNER = "AtifExporter";
/**
 * A trajectory file up to this size is written synchronously, once per run: for a small file the
 * thread-pool round trips of open, write, close and rename cost more CPU than the writes, and the
 * event loop waits well under a millisecond. Larger ones are written asynchronously.
 */
const SYNC_WRITE_MAX_CHARS = 256 * 1024;
const AGENT_OPTIONS = declareOptions<AtifAgentInfo>(
  OWNER,
  { name: is.required(is.string), version: is.required(is.string), modelName: is.string, toolDefinitions: is.array },
  { prefix: "agent." },
);
/** The exporter's options, declared once: the key list, type checks and messages derive from it. */
const ATIF_OPTIONS = declareOptions<AtifExporterOptions>(OWNER, {
  agent: is.required(is.nested(AGENT_OPTIONS)),
  outputDirectory: is.string,
  sessionId: is.string,
  includeMarks: is.boolean,
  framework: is.string,
  followSymlinks: is.boolean,
  maxRetained: is.numberAtLeast(0),
  maxRetainedBytes: is.numberAtLeast(0),
});

/** Checks the options so that a configuration mistake fails at startup rather than as missing trajectories. */
function checkOptions(config: AtifExporterOptions): void {
  ATIF_OPTIONS.check(config);
  if (config.outputDirectory !== undefined) refuseLinkedDirectory(OWNER, config.outputDirectory, config.followSymlinks === true);
}

/** One counted failure kind, as reported by `AtifExporter.diagnostics()`. */
export type AtifExporterDiagnostic = Diagnostic;

/** The part of a runtime the exporter needs (see ExporterRuntime). */
export type AtifSubscribable = ExporterRuntime;

interface Group {
  root: string;
  events: AtofEvent[];
  /** uuids of the group's scopes (their `memberOf` entries go when the group does) */
  members: string[];
  /** Only groups with an agent or LLM scope are trajectories; plain scopes are not. */
  relevant: boolean;
}

/**
 * Collects events per top-level scope and, when that scope ends, maps them to ATIF, validates
 * and (with `outputDirectory`) writes each trajectory atomically. Failures are counted in
 * `diagnostics()`, never thrown into the app.
 */
export class AtifExporter implements Exporter {
  private readonly registrations = new ExporterRegistrations("atif");
  private readonly options: AtofToAtifOptions;
  private readonly groups = new Map<string, Group>();
  /** uuid of every scope seen in a still-collecting group → that group's root. */
  private readonly memberOf = new Map<string, string>();
  private readonly completed: RetainedTrajectories;
  private readonly written: string[] = [];
  /** Writes run one after another, so files appear (and `files()` lists them) in completion order. */
  private writes: Promise<void> = Promise.resolve();
  private readonly problems = new DiagnosticCounter();
  private closed = false;
  /** Temp file names: random per exporter (two processes may share a pid across containers), then a counter. */
  private readonly tempTag = randomBytes(4).toString("hex");
  private tempCount = 0;
  /** Whether the output directory was made (or found) before an earlier write. */
  private directoryMade = false;

  /**
   * Throws a `TypeError` naming the option on a configuration mistake (missing agent, unknown key), and an
   * `Error` when `outputDirectory` is a symbolic link (without `followSymlinks: true`).
   */
  constructor(private readonly config: AtifExporterOptions) {
    checkOptions(config);
    this.completed = new RetainedTrajectories(config.maxRetained ?? 1000, config.maxRetainedBytes ?? DEFAULT_MAX_RETAINED_BYTES);
    this.options = {
      agent: config.agent,
      ...(config.sessionId !== undefined ? { sessionId: config.sessionId } : {}),
      ...(config.includeMarks !== undefined ? { includeMarks: config.includeMarks } : {}),
      ...(config.framework !== undefined ? { framework: config.framework } : {}),
    };
  }

  /**
   * Subscribes to the runtime under a name unique to this instance (`atif#N`);
   * `runtime.flush()`/`shutdown()` then reach this exporter too. Returns the remover.
   */
  register(runtime: AtifSubscribable): () => boolean {
    return this.registrations.register(runtime, (event) => this.onEvent(event), this);
  }

  /** Feeds one event by hand (what the subscription does); never throws. */
  onEvent(event: AtofEvent): void {
    if (this.closed) return;
    try {
      this.accept(event);
    } catch (error) {
      this.report("atif.event_failed", error);
    }
  }

  /** The trajectories completed so far (deep copies). */
  toJSON(): AtifTrajectory[] {
    return JSON.parse(jsonText(this.completed.list() as unknown as Json)) as AtifTrajectory[];
  }

  /** Paths of the files written so far, the latest `maxRetained` (default 1000) of them, oldest first. */
  files(): string[] {
    return [...this.written];
  }

  /** Counted failures (mapping, validation, writes), one entry per code. */
  diagnostics(): AtifExporterDiagnostic[] {
    return this.problems.list();
  }

  /** Resolves once every completed trajectory is written. */
  async forceFlush(): Promise<void> {
    await this.registrations.flushDelivery();
    let seen: Promise<void>;
    do {
      seen = this.writes;
      await seen;
    } while (seen !== this.writes);
  }

  /** Maps what is still open (a crash leaves scopes unended), writes everything, then ignores further events. Idempotent. */
  async shutdown(): Promise<void> {
    if (!this.closed) {
      for (const root of [...this.groups.keys()]) this.finalize(root);
      this.closed = true;
    }
    await this.forceFlush();
  }

  private accept(event: AtofEvent): void {
    if (event.kind === "mark") {
      const root = event.parent_uuid === null ? undefined : this.memberOf.get(event.parent_uuid);
      if (root !== undefined) this.groups.get(root)?.events.push(event);
      return;
    }
    let root = this.memberOf.get(event.uuid);
    if (root === undefined) {
      if (event.scope_category === "end" && (event.parent_uuid === null || !this.memberOf.has(event.parent_uuid))) return; // lone end
      root = (event.parent_uuid === null ? undefined : this.memberOf.get(event.parent_uuid)) ?? event.uuid;
      if (!this.groups.has(root)) this.groups.set(root, { root, events: [], members: [], relevant: false });
      this.memberOf.set(event.uuid, root);
      this.groups.get(root)!.members.push(event.uuid);
    }
    const group = this.groups.get(root)!;
    group.events.push(event);
    if (event.category === "agent" || event.category === "llm") group.relevant = true;
    if (event.scope_category === "end" && event.uuid === root) this.finalize(root);
  }

  private finalize(root: string): void {
    const group = this.groups.get(root);
    this.groups.delete(root);
    // The group's own members only: scanning every entry would make many concurrent runs quadratic.
    for (const uuid of group?.members ?? []) this.memberOf.delete(uuid);
    if (!group || !group.relevant) return; // bounded memory: the collected events go with the group
    let trajectories: AtifTrajectory[];
    try {
      trajectories = sharingFrozenPayloads(() => atofToAtif(group.events, this.options));
    } catch (error) {
      this.report("atif.mapping_failed", error);
      return;
    }
    if (trajectories.length === 0) this.report("atif.empty_trajectory", new Error(`scope ${root} produced no ATIF steps`));
    for (const trajectory of trajectories) {
      const result = validateAtif(trajectory);
      if (!result.valid) {
        const detail = result.errors
          .slice(0, 3)
          .map((e) => `${e.path}: ${e.message}`)
          .join("; ");
        this.report("atif.validation_failed", new Error(`trajectory ${trajectory.trajectory_id}: ${detail}`));
        continue;
      }
      this.completed.add(trajectory);
      const dir = this.config.outputDirectory;
      if (dir !== undefined) this.writes = this.writes.then(() => this.write(dir, trajectory));
    }
  }

  private async write(dir: string, trajectory: AtifTrajectory): Promise<void> {
    const id = safeFileNamePart(trajectory.trajectory_id ?? "trajectory");
    const target = join(dir, `relaytrace-atif-${id}.json`);
    const temp = join(dir, `.relaytrace-atif-${id}.${process.pid}.${this.tempTag}${(++this.tempCount).toString(36)}.tmp`);
    try {
      // The directory is made before the first file, and again whenever it has gone missing
      // (a write failing with ENOENT), instead of being looked up before every file.
      // A link planted in place of the directory after construction is refused as at construction.
      if (this.config.followSymlinks !== true && isSymbolicLink(dir)) {
        throw new Error(`outputDirectory ${dir} has become a symbolic link; not writing through it`);
      }
      if (!this.directoryMade) makeDirectory(dir);
      this.directoryMade = true;
      const text = `${jsonText(trajectory as unknown as Json, 2)}\n`;
      // rename is atomic within one directory: readers never see half a file
      try {
        await this.writeAtomically(temp, target, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        makeDirectory(dir);
        await this.writeAtomically(temp, target, text);
      }
      this.written.push(target);
      const max = this.config.maxRetained ?? 1000;
      if (this.written.length > max) this.written.splice(0, this.written.length - max);
    } catch (error) {
      this.report("atif.write_failed", error);
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }

  /** The temp file, then the rename into place: small files synchronously (see SYNC_WRITE_MAX_CHARS). */
  private async writeAtomically(temp: string, target: string, text: string): Promise<void> {
    if (text.length <= SYNC_WRITE_MAX_CHARS) {
      writeFileSync(temp, text, { encoding: "utf8", flag: "wx" }); // a fresh name: never through an existing file or link
      renameSync(temp, target);
    } else {
      await writeFile(temp, text, { encoding: "utf8", flag: "wx" });
      await rename(temp, target);
    }
  }

  private report(code: string, error: unknown): void {
    this.problems.recordError(code, error);
  }
}
