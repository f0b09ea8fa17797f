import type { RunSummary } from "../model.js";
import type { RunsQuery } from "./routes.js";

/**
 * Which runs the list shows and in what order: pure, so the unit test runs the same functions
 * the page does.
 */

/** The sorts the list offers: key, then direction. */
export const SORTS: readonly { value: string; label: string }[] = [
  { value: "time-desc", label: "newest first" },
  { value: "time-asc", label: "oldest first" },
  { value: "duration-desc", label: "longest first" },
  { value: "duration-asc", label: "shortest first" },
  { value: "cost-desc", label: "costliest first" },
  { value: "cost-asc", label: "cheapest first" },
];

export const STATUSES = ["ok", "error", "suspended", "running"] as const;

/** The lowercase text a search looks through: names, ids, who, tags, models, evaluations, input and output. */
export function runSearchText(run: RunSummary): string {
  return [
    run.name,
    run.id,
    run.sessionId ?? "",
    run.userId ?? "",
    ...run.tags,
    ...run.models,
    ...run.evaluations.map((e) => e.name + " " + (e.label ?? "")),
    run.input ?? "",
    run.output ?? "",
  ]
    .join("\n")
    .toLowerCase();
}

/** Whether a run passes every filter and holds every word of the search. */
export function runMatches(run: RunSummary, query: RunsQuery, text: string): boolean {
  if (query.session !== "" && run.sessionId !== query.session) return false;
  if (query.user !== "" && run.userId !== query.user) return false;
  if (query.tag !== "" && !run.tags.includes(query.tag)) return false;
  if (query.status !== "" && run.status !== query.status) return false;
  for (const word of query.q.toLowerCase().split(/\s+/)) if (word !== "" && !text.includes(word)) return false;
  return true;
}

/** A run's duration in µs; a running one counts up to `now`. */
export function durationOf(run: RunSummary, nowUs: number): number {
  return (run.end ?? nowUs) - run.start;
}

/** The runs sorted as `sort` says (newest first for an unknown one); ties by start time, newest first. */
export function sortRuns(runs: RunSummary[], sort: string, nowUs: number): RunSummary[] {
  const [key, direction] = sort.split("-");
  const sign = direction === "asc" ? 1 : -1;
  const value = (r: RunSummary): number => (key === "duration" ? durationOf(r, nowUs) : key === "cost" ? (r.costUsd ?? -1) : r.start);
  return runs.sort((x, y) => sign * (value(x) - value(y)) || y.start - x.start || (x.id < y.id ? -1 : 1));
}

/** The values each filter offers, from the runs themselves (sorted). */
export function filterValues(runs: Iterable<RunSummary>): { session: string[]; user: string[]; tag: string[] } {
  const sessions = new Set<string>();
  const users = new Set<string>();
  const tags = new Set<string>();
  for (const r of runs) {
    if (r.sessionId !== undefined) sessions.add(r.sessionId);
    if (r.userId !== undefined) users.add(r.userId);
    for (const t of r.tags) tags.add(t);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return { session: sorted(sessions), user: sorted(users), tag: sorted(tags) };
}
