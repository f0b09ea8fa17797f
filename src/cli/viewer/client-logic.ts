/**
 * The page's pure logic: which rows show, what a search matches, how times print and where bars
 * go. The page's modules (client/) import them and the build bundles them into the page; the
 * unit test runs the same functions in Node.
 */

export interface RowLike {
  name: string;
  kind: string;
  status: string;
  depth: number;
  last: number;
  input?: unknown;
  output?: unknown;
  metadata?: unknown;
  toolCallId?: string;
  model?: string;
  annotation?: unknown;
}

export interface TraceLike {
  first: number;
  count: number;
}

export interface RowFilter {
  /** Lowercase words, all of which must match. */
  text: string;
  /** Also search inputs, outputs, attributes and annotations, not only names. */
  everywhere: boolean;
  status: string;
  kind: string;
}

/** Index of each row's parent row (-1 for a root), from the depth-first depths. */
export function parentIndexes(rows: readonly RowLike[]): Int32Array {
  const parents = new Int32Array(rows.length);
  const stack: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const depth = rows[i]!.depth;
    stack.length = Math.min(stack.length, depth);
    parents[i] = stack.length > 0 ? stack[stack.length - 1]! : -1;
    stack[depth] = i;
  }
  return parents;
}

/** The lowercase text a search looks through (cached by the caller: building it is the costly part). */
export function searchText(row: RowLike, everywhere: boolean): string {
  const parts = [row.name, row.kind, row.toolCallId ?? "", row.model ?? ""];
  if (everywhere) {
    for (const value of [row.input, row.output, row.metadata, row.annotation]) {
      if (value !== undefined && value !== null) parts.push(typeof value === "string" ? value : JSON.stringify(value));
    }
  }
  return parts.join("\n").toLowerCase();
}

/** Whether a row passes the status and kind filters and contains every word of the search. */
export function rowMatches(row: RowLike, text: string, filter: RowFilter): boolean {
  if (filter.status !== "" && row.status !== filter.status) return false;
  if (filter.kind !== "" && row.kind !== filter.kind) return false;
  if (filter.text === "") return true;
  for (const word of filter.text.split(/\s+/)) if (word !== "" && !text.includes(word)) return false;
  return true;
}

/**
 * The list the waterfall draws: for each trace its header (as `-1 - traceIndex`) then its rows.
 * Without a filter, collapsed rows hide their descendants; with one, matches show with their
 * ancestors (for context) and collapsing is ignored.
 */
export function visibleRows(
  rows: readonly RowLike[],
  traces: readonly TraceLike[],
  collapsed: ReadonlySet<number>,
  matches: Uint8Array | null,
  parents: Int32Array,
): number[] {
  const out: number[] = [];
  let keep: Uint8Array | null = null;
  if (matches) {
    keep = new Uint8Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      if (!matches[i]) continue;
      // Mark the row and its ancestors; stop at one already marked (its ancestors are too): linear.
      for (let j = i; j >= 0 && !keep[j]; j = parents[j]!) keep[j] = 1;
    }
  }
  for (let t = 0; t < traces.length; t++) {
    const trace = traces[t]!;
    const headerAt = out.length;
    out.push(-1 - t);
    const end = trace.first + trace.count;
    for (let i = trace.first; i < end; i++) {
      if (keep) {
        if (keep[i]) out.push(i);
        continue;
      }
      out.push(i);
      if (collapsed.has(i)) i = rows[i]!.last;
    }
    if (keep && out.length === headerAt + 1) out.pop(); // a trace with no match is not listed
  }
  return out;
}

/** A duration in microseconds for a person: `850µs`, `12.3ms`, `4.21s`, `3m 05s`. */
export function formatDuration(us: number): string {
  if (!(us >= 0)) return "?";
  if (us < 1000) return `${Math.round(us)}µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)}ms`;
  if (us < 60_000_000) return `${(us / 1_000_000).toFixed(2)}s`;
  const s = Math.round(us / 1_000_000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Where a bar sits on its trace's axis, in percent; zero-length spans stay visible. */
export function barPlacement(start: number, end: number, traceStart: number, traceEnd: number): { left: number; width: number } {
  const span = Math.max(1, traceEnd - traceStart);
  const left = Math.min(100, Math.max(0, ((start - traceStart) / span) * 100));
  const width = Math.max(0.15, Math.min(100 - left, ((end - start) / span) * 100));
  return { left, width };
}

/** Round tick positions (microseconds from the trace start) for an axis of `duration`. */
export function axisTicks(duration: number, maxTicks: number): number[] {
  if (!(duration > 0)) return [0];
  const raw = duration / Math.max(1, maxTicks);
  const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let t = 0; t <= duration + step * 1e-9; t += step) ticks.push(t);
  return ticks;
}
