import { readdirSync, readFileSync } from "node:fs";

/** The variable every process a command starts inherits: how its descendants are found after they leave its session. */
export const RUN_MARK_VARIABLE = "RELAYTRACE_BASH_RUN";
/** Rounds of finding and killing: a process forking between a round's scan and its kills is caught by the next. */
const KILL_ROUNDS = 5;

function tryKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone, or not ours
  }
}

/** Session id of a live process, from /proc/<pid>/stat (fields after the command name, which may hold spaces); none for a zombie. */
function sessionOf(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const session = Number(fields[3]);
  return fields[0] !== "Z" && Number.isInteger(session) ? session : undefined;
}

/**
 * Processes (other than this one) in the session `leader` started, or carrying `mark` in their
 * environment: a `setsid` or daemonized descendant leaves the session, and its parent may be
 * gone, but it keeps the environment it inherited. Linux only (/proc); elsewhere none.
 */
function processesOfRun(leader: number, mark: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  const needle = `${RUN_MARK_VARIABLE}=${mark}\0`;
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      if (sessionOf(readFileSync(`/proc/${pid}/stat`, "latin1")) === leader) {
        found.push(pid);
        continue;
      }
      if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(needle)) found.push(pid);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

/**
 * Kills everything a command started: its process group (the shell was made a session and group
 * leader), then every process still in its session or carrying its mark, a few rounds over.
 */
export function killRun(leader: number, mark: string): void {
  tryKill(-leader);
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const left = processesOfRun(leader, mark);
    if (left.length === 0) return;
    for (const pid of left) tryKill(pid);
  }
}
