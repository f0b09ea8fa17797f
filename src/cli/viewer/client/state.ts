import { parentIndexes, type RowFilter } from "../client-logic.js";

// What the page's modules share.
/* eslint-disable @typescript-eslint/no-explicit-any */

/** The embedded document and the page's mutable state. */
export interface ViewerState {
  doc: any;
  /** The spans, in tree order. */
  rows: any[];
  traces: any[];
  /** Each row's parent row, -1 for a root. */
  parents: Int32Array;
  /** Row index by `traceId/spanId`. */
  rowOf: Map<string, number>;
  collapsed: Set<number>;
  filter: RowFilter;
  /** Rows the filter matches (null: no filter). */
  matches: Uint8Array | null;
  /** What the waterfall lists: row indexes, and -1 - trace index for a trace's header row. */
  visible: number[];
  selected: number;
  currentPane: string;
}

/** The waterfall's controls, for the panels and the keyboard. */
export interface Waterfall {
  pane: any;
  /** The detail panel beside the waterfall (the panels fill it). */
  detail: any;
  scroller: any;
  search: any;
  /** Height of one row, px. */
  row: number;
  draw(): void;
  refresh(): void;
  applyFilter(): void;
  /** Clears the search and filters. */
  clearFilters(): void;
  /** Unfolds a row's ancestors (clearing a filter that hides it) and scrolls it into view. */
  reveal(i: number): void;
}

/** The state of a fresh page over a document (its spans in tree order, nothing selected). */
export function viewerState(doc: any): ViewerState {
  const rows: any[] = doc.spans;
  const state: ViewerState = {
    doc,
    rows,
    traces: doc.traces,
    parents: parentIndexes(rows),
    rowOf: new Map<string, number>(),
    collapsed: new Set<number>(),
    filter: { text: "", everywhere: false, status: "", kind: "" },
    matches: null,
    visible: [],
    selected: -1,
    currentPane: "spans",
  };
  rows.forEach((r: any, i: number) => state.rowOf.set(r.traceId + "/" + r.id, i));
  return state;
}
