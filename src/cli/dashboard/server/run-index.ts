import { isJsonObject } from "../../../events/json.js";
import { parseTimestamp } from "../../../events/timestamp.js";
import type { AtofEvent, MarkEvent } from "../../../events/types.js";
import { SCHEMA_EVALUATION } from "../../../events/wire-names.js";
import type { RunSummary } from "../model.js";
import { RunRecord } from "./run-record.js";

/** Marks held until their parent scope is read (a producer that writes out of order); past this they are counted as loose. */
const MAX_WAITING_MARKS = 10_000;

/** The trace id an evaluation mark's `otel.traceparent` names (an evaluation of a span by its W3C ids). */
function traceparentTraceId(event: MarkEvent): string | undefined {
  if (event.data_schema?.name !== SCHEMA_EVALUATION || !isJsonObject(event.metadata)) return undefined;
  const value = event.metadata["otel.traceparent"];
  const match = typeof value === "string" ? /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(value) : null;
  return match?.[1];
}

/**
 * Runs by trace, built one event at a time as the files are read: each scope uuid points to its
 * run's record. A scope whose parent is not known yet starts a run of its own; when that parent
 * is read later, the run is merged into the parent's (and its id is listed as removed). Each
 * change bumps the index's version and stamps the run with it, so the page asks for what changed.
 */
export class RunIndex {
  private readonly byUuid = new Map<string, RunRecord>();
  private readonly byTraceId = new Map<string, RunRecord>();
  private readonly runs = new Set<RunRecord>();
  /** Runs whose root names a parent not read yet, by that parent's uuid. */
  private readonly waitingRuns = new Map<string, RunRecord[]>();
  private readonly waitingMarks = new Map<string, { event: MarkEvent; ref: [number, number, number] }[]>();
  private waitingMarkCount = 0;
  private readonly removedAt = new Map<string, number>();
  version = 0;
  looseMarks = 0;

  /** Adds one event read from `file` at `offset` (`length` bytes without its line end). */
  add(event: AtofEvent, file: number, offset: number, length: number): void {
    const us = parseTimestamp(event.timestamp);
    if (event.kind === "mark") {
      this.addMark(event, [file, offset, length], us);
      return;
    }
    let record = this.byUuid.get(event.uuid)?.resolve();
    if (record === undefined) {
      const parent = event.parent_uuid;
      record = parent !== null && parent !== event.uuid ? this.byUuid.get(parent)?.resolve() : undefined;
      if (record === undefined) record = this.newRun(event.uuid, parent);
      this.byUuid.set(event.uuid, record);
      this.adoptWaiting(event.uuid, record);
    }
    record.addRef(file, offset, length);
    record.add(event, us);
    this.touch(record);
  }

  private newRun(uuid: string, parent: string | null): RunRecord {
    const record = new RunRecord(uuid);
    this.runs.add(record);
    this.byTraceId.set(record.id, record);
    this.removedAt.delete(record.id);
    if (parent !== null && parent !== uuid) {
      const list = this.waitingRuns.get(parent);
      if (list) list.push(record);
      else this.waitingRuns.set(parent, [record]);
    }
    return record;
  }

  /** Runs and marks that were waiting for scope `uuid` join its run. */
  private adoptWaiting(uuid: string, record: RunRecord): void {
    const runs = this.waitingRuns.get(uuid);
    if (runs) {
      this.waitingRuns.delete(uuid);
      for (const waiting of runs) {
        const child = waiting.resolve();
        if (child === record) continue;
        record.absorb(child);
        this.runs.delete(child);
        this.removedAt.set(child.id, this.version + 1);
      }
    }
    const marks = this.waitingMarks.get(uuid);
    if (marks) {
      this.waitingMarks.delete(uuid);
      this.waitingMarkCount -= marks.length;
      for (const { event, ref } of marks) {
        record.addRef(...ref);
        record.add(event, parseTimestamp(event.timestamp));
      }
    }
  }

  private addMark(event: MarkEvent, ref: [number, number, number], us: number): void {
    const parent = event.parent_uuid;
    let record = parent !== null ? this.byUuid.get(parent)?.resolve() : undefined;
    if (record === undefined) {
      const traceId = traceparentTraceId(event);
      if (traceId !== undefined) record = this.byTraceId.get(traceId)?.resolve();
    }
    if (record !== undefined) {
      record.addRef(...ref);
      record.add(event, us);
      this.touch(record);
      return;
    }
    if (parent !== null && this.waitingMarkCount < MAX_WAITING_MARKS) {
      const list = this.waitingMarks.get(parent);
      if (list) list.push({ event, ref });
      else this.waitingMarks.set(parent, [{ event, ref }]);
      this.waitingMarkCount++;
      return;
    }
    this.looseMarks++;
  }

  private touch(record: RunRecord): void {
    record.version = ++this.version;
  }

  /** The run a trace id names (a run merged into another answers with that one). */
  find(id: string): RunRecord | undefined {
    return this.byTraceId.get(id)?.resolve();
  }

  get size(): number {
    return this.runs.size;
  }

  /** Marks still waiting for their parent count as loose: nothing in the files names it. */
  looseMarkCount(): number {
    return this.looseMarks + this.waitingMarkCount;
  }

  /** Summaries of the runs changed after `since` (every run for 0), and the ids merged away after it. */
  changedSince(since: number, fileNames: readonly string[]): { runs: RunSummary[]; removed: string[] } {
    const runs: RunSummary[] = [];
    for (const record of this.runs) if (record.version > since) runs.push(record.summary(fileNames));
    const removed: string[] = [];
    if (since > 0) for (const [id, at] of this.removedAt) if (at > since) removed.push(id);
    return { runs, removed };
  }
}
