import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";

/** The claim file sits beside the log: `<log path>.lock`. */
export const CLAIM_SUFFIX = ".lock";
/** How often a holder refreshes its claim's mtime, the only liveness another host can see. */
const HEARTBEAT_MS = 10_000;
/** A claim from another host (or pid namespace) whose mtime is older than this is stale. */
export const FOREIGN_CLAIM_EXPIRY_MS = 60_000;

/** What a claim file holds (JSON). */
export interface ClaimRecord {
  pid: number;
  /** The machine's name; "" where the runtime would not tell it (Deno without `--allow-sys=hostname`). */
  host: string;
  /** Kernel boot id and pid namespace: where `pid` means this process (Linux; empty elsewhere). */
  boot: string;
  pid_namespace: string;
  /** Process start, ms since the epoch (approximate), and in clock ticks since boot (Linux, exact). */
  started_ms: number;
  start_ticks: string;
  /** Tells this claim from a later one by the same process. */
  token: string;
}

export type ClaimOutcome =
  | { status: "claimed"; claim: WriterClaim; staleRemoved: { holder: ClaimRecord | undefined; reason: string } | undefined }
  /** A live process holds the file; `holder` is undefined when the claim path holds something that is not a claim. */
  | { status: "held"; holder: ClaimRecord | undefined; claimPath: string }
  /** The claim file could not be made (a read-only directory, say): the writer goes on unclaimed. */
  | { status: "unavailable"; error: Error };

/** A claim's text, never through a symlink; undefined when there is none. */
function readText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return fallback;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesized command name, which may hold spaces). */
function startTicks(pid: number | "self"): string {
  const stat = readOr(`/proc/${pid}/stat`, "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? "";
}

/** This machine's name, or "" where reading it is not allowed: a writer is never refused for that. */
function machineName(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

let self: Omit<ClaimRecord, "token"> | undefined;
function selfRecord(): Omit<ClaimRecord, "token"> {
  if (self !== undefined) return self;
  let namespace = "";
  try {
    namespace = readlinkSync("/proc/self/ns/pid");
  } catch {
    // not Linux, or /proc not mounted
  }
  self = {
    pid: process.pid,
    host: machineName(),
    boot: readOr("/proc/sys/kernel/random/boot_id", ""),
    pid_namespace: namespace,
    started_ms: Math.round(Date.now() - process.uptime() * 1000),
    start_ticks: startTicks("self"),
  };
  return self;
}

function parseRecord(text: string): ClaimRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<ClaimRecord> | null;
    if (typeof value?.pid !== "number" || typeof value.host !== "string" || typeof value.token !== "string") return undefined;
    return value as ClaimRecord;
  } catch {
    return undefined;
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // Only "no such process" says it is gone; EPERM (another user's) or a runtime that may not
    // signal processes (Deno without --allow-run) leaves it alive.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Why the claim in `record` is stale, or undefined when the process that wrote it may still run. */
function staleReason(record: ClaimRecord, claimPath: string): string | undefined {
  const me = selfRecord();
  // Only a named host is known to be this one: an unnamed one may be any machine sharing the directory.
  const sameHost = me.host !== "" && record.host === me.host;
  if (sameHost && record.boot !== me.boot && record.boot !== "" && me.boot !== "") return "it is from before a reboot";
  if (!sameHost || record.boot !== me.boot || record.pid_namespace !== me.pid_namespace) {
    // Another machine or container, or one that cannot be told apart from this one: its pid means
    // nothing here; only the heartbeat tells.
    let age = Infinity;
    try {
      age = Date.now() - statSync(claimPath).mtimeMs;
    } catch {
      // gone meanwhile
    }
    return age < FOREIGN_CLAIM_EXPIRY_MS ? undefined : `no heartbeat for ${Math.round(FOREIGN_CLAIM_EXPIRY_MS / 1000)} s`;
  }
  const gone = "it no longer runs";
  if (record.pid === process.pid) {
    // This process, or an earlier one that had the same pid (a container restarted).
    const same = me.start_ticks !== "" ? record.start_ticks === me.start_ticks : Math.abs(record.started_ms - me.started_ms) < 1000;
    return same ? undefined : gone;
  }
  if (!processExists(record.pid)) return gone;
  // The pid may have been reused by an unrelated process since: its start time tells.
  const ticks = record.start_ticks !== "" ? startTicks(record.pid) : "";
  return ticks === "" || ticks === record.start_ticks ? undefined : gone;
}

/** Creates `claimPath` holding `text`, atomically: a reader never sees a half-written claim. */
function create(claimPath: string, text: string): void {
  const temp = `${claimPath}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, claimPath); // fails with EEXIST when a claim is there: the atomic test-and-set
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    // A filesystem without hard links: exclusive create, then write.
    const claimFd = openSync(claimPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(claimFd, text);
    } finally {
      closeSync(claimFd);
    }
  } finally {
    unlinkSync(temp);
  }
}

/**
 * Removes the stale claim whose text was `seen`. It is renamed aside first and checked: if another
 * process replaced it with a fresh claim meanwhile, that one is put back, never deleted.
 */
function removeStale(claimPath: string, seen: string): void {
  const aside = `${claimPath}.${process.pid}-${randomBytes(6).toString("hex")}.stale`;
  try {
    renameSync(claimPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // someone else removed it
    throw error;
  }
  try {
    if (readText(aside) !== seen) linkSync(aside, claimPath);
  } catch {
    // a claim made meanwhile stays; the next attempt reads it
  } finally {
    unlinkSync(aside);
  }
}

/** A held claim: refreshed while held, released on shutdown or process exit. */
export class WriterClaim {
  private readonly heartbeat: NodeJS.Timeout;
  private released = false;

  constructor(
    readonly claimPath: string,
    private readonly text: string,
  ) {
    this.heartbeat = setInterval(() => this.touch(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Removes the claim file if it is still ours. Synchronous, so it also runs in a process 'exit' listener. */
  release(): void {
    if (this.released) return;
    this.released = true;
    clearInterval(this.heartbeat);
    try {
      if (readText(this.claimPath) === this.text) unlinkSync(this.claimPath);
    } catch {
      // a claim we cannot remove expires: its process is gone
    }
  }

  private touch(): void {
    const now = new Date();
    try {
      utimesSync(this.claimPath, now, now);
    } catch {
      // removed by hand: nothing to refresh
    }
  }
}

/**
 * Claims the file at `logPath` for this process's writer, across processes: `<logPath>.lock`,
 * created atomically, holds the writer's pid and start time. A claim whose process is gone (killed,
 * crashed, a pid since reused) is removed and taken over; one a live process holds is reported.
 */
export function claimWriter(logPath: string): ClaimOutcome {
  const claimPath = logPath + CLAIM_SUFFIX;
  const text = JSON.stringify({ ...selfRecord(), token: randomBytes(12).toString("hex") } satisfies ClaimRecord) + "\n";
  let staleRemoved: { holder: ClaimRecord | undefined; reason: string } | undefined;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        create(claimPath, text);
        return { status: "claimed", claim: new WriterClaim(claimPath, text), staleRemoved };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let seen: string | undefined;
      try {
        seen = readText(claimPath);
      } catch {
        return { status: "held", holder: undefined, claimPath }; // a symlink or a directory: not ours to remove
      }
      if (seen === undefined) continue; // released meanwhile
      const holder = parseRecord(seen);
      // Unreadable text is a claim its writer never finished (a filesystem without hard links): stale.
      const reason = holder === undefined ? "it is unreadable" : staleReason(holder, claimPath);
      if (reason === undefined) return { status: "held", holder, claimPath };
      removeStale(claimPath, seen);
      staleRemoved = { holder, reason };
    }
    return { status: "held", holder: undefined, claimPath };
  } catch (error) {
    return { status: "unavailable", error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** `process 123`, and its host when it is not this one. */
export function processName(holder: ClaimRecord): string {
  if (holder.host === "") return `process ${holder.pid} on a host that did not give its name`;
  return holder.host === selfRecord().host ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`;
}

/** One sentence naming who holds a claim, for an error. */
export function describeHolder(outcome: { holder: ClaimRecord | undefined; claimPath: string }): string {
  const { holder, claimPath } = outcome;
  if (holder === undefined) return `${claimPath} exists and is not a writer claim (remove it if no writer uses the file)`;
  const since = Number.isFinite(holder.started_ms) ? `, started ${new Date(holder.started_ms).toISOString()}` : "";
  return `${processName(holder)}${since} writes it (claim ${claimPath})`;
}
