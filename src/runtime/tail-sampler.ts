import { severityKey } from "../events/wire-names.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import type { DraftEvent } from "./event-stages.js";
import { heldEventBytes } from "./held-bytes.js";
import { DROPPED, KEPT, SampledTrace, UNDECIDED } from "./sampled-trace.js";
import { keptByRatio, ratioThreshold, type RatioThreshold } from "./trace-ratio.js";
import type { SamplingKeepRules, SamplingOptions } from "./types.js";

export { DROPPED, KEPT, UNDECIDED, type SampledTrace };

/** The diagnostic code every dropped trace is counted under. */
export const DROPPED_TRACES_CODE = "sampling.dropped_traces";
/** The metric (a counter, on a `runtime.metric()` mark of the same name) of dropped traces. */
export const DROPPED_TRACES_METRIC = "relaytrace.sampling.dropped_traces";
/** Default bound on the estimated bytes of the events held over all open traces. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** How many ended scopes stay findable, at most, as the parent of a late event (a `tool.pending` mark after its tool's end). */
export const RECENT_CAPACITY = 4096;

/**
 * On a mark draft while sampling: the uuid on top of the stack it was emitted from. A mark with an
 * explicit parent no trace here holds (a span of another process) belongs to the trace it was
 * emitted in.
 */
export const EMITTED_UNDER: unique symbol = Symbol("relaytrace.emittedUnder");

/** What the sampler needs of its dispatcher. */
export interface SamplerHooks<T> {
  /** Delivers the held events of a kept trace, in the order they were emitted. */
  release(items: readonly T[]): void;
  /** Reports traces dropped since the last report (the metric); may emit an event. */
  reportDrops(count: number): void;
}

/**
 * Tail sampling, one decision per trace. Each event is placed in its trace by its parent (as the
 * exporters rebuild traces): a start whose parent no trace holds begins one. A trace's events are
 * held until every scope in it has ended (its root last), then the whole trace is kept if a keep
 * rule matches, else by its caller's W3C sampled flag when it has one, else by `ratioByAgent[root
 * name] ?? ratio` on its trace id. The decision waits for the end of the delivery pass, so the
 * marks a call emits right after its end (`tool.pending`) are seen first. Events of decided traces
 * follow the decision; marks outside any trace are delivered as they come.
 */
export class TailSampler<T> {
  private readonly keep: SamplingKeepRules;
  private readonly threshold: RatioThreshold;
  private readonly thresholdByRoot: Map<string, RatioThreshold>;
  private readonly maxBufferedBytes: number;
  private readonly severityKey: string;
  /** Open scopes by uuid, and the trace each belongs to (with the ended ones of undecided traces). */
  private readonly open = new Map<string, SampledTrace<T>>();
  /**
   * Ended scopes of decided traces by uuid, for events that come after their parent ended (the
   * scopes of an undecided trace stay in `open` until its decision): the latest in `recent`,
   * the ones before in `older`; when `recent` is full it becomes `older` (between half and all of
   * the last `RECENT_CAPACITY` stay findable, and no entry is ever deleted one by one).
   */
  private recent = new Map<string, SampledTrace<T>>();
  private older = new Map<string, SampledTrace<T>>();
  /**
   * Traces in the order they began, from `orderHead` on; decided ones are skipped, and cleared out
   * once they outnumber the undecided ones (the first undecided is decided first when memory runs short).
   */
  private order: SampledTrace<T>[] = [];
  private orderHead = 0;
  private undecidedCount = 0;
  /** Traces whose last open scope ended during this delivery pass. */
  private completing: SampledTrace<T>[] = [];
  private heldBytes = 0;
  private unreportedDrops = 0;
  private lastDrop: { traceId: string; why: string } | undefined;

  constructor(
    options: SamplingOptions,
    namespace: string,
    private readonly diagnostics: DiagnosticCounter,
    private readonly hooks: SamplerHooks<T>,
  ) {
    this.keep = { ...options.keep };
    this.threshold = ratioThreshold(options.ratio ?? 1);
    // Own keys only: a root named `constructor` has no ratio of its own unless the app gave one.
    this.thresholdByRoot = new Map(Object.entries(options.ratioByAgent ?? {}).map(([name, ratio]) => [name, ratioThreshold(ratio)]));
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.severityKey = severityKey(namespace);
  }

  /**
   * The trace `event` belongs to, with what it tells noted; undefined for a mark (or an end
   * whose start was never seen) outside every trace. Called in delivery order, before the stages
   * change the event.
   */
  admit(event: DraftEvent): SampledTrace<T> | undefined {
    let trace: SampledTrace<T> | undefined;
    if (event.kind === "mark") {
      trace = this.traceOf(event.parent_uuid) ?? this.traceOf((event as { [EMITTED_UNDER]?: string })[EMITTED_UNDER]);
    } else if (event.scope_category === "start") {
      trace = this.traceOf(event.parent_uuid);
      if (trace === undefined) trace = this.begin(event);
      this.open.set(event.uuid, trace);
      trace.open++;
    } else {
      trace = this.open.get(event.uuid);
      if (trace === undefined) {
        trace = this.traceOf(event.parent_uuid);
      } else if (trace.decision === UNDECIDED) {
        // Stays findable as a parent until the decision (the tool.pending mark after a tool's end).
        trace.ended.push(event.uuid);
        if (--trace.open === 0) this.completing.push(trace);
      } else {
        this.open.delete(event.uuid);
        this.remember(event.uuid, trace);
        trace.open--;
      }
    }
    trace?.note(event, this.severityKey);
    return trace;
  }

  /**
   * Holds `item` (emitted as `event`) of the undecided `trace`. Past the memory bound it decides
   * now: `trace` if it passes the bound by itself, then the oldest traces until the rest fits.
   */
  hold(trace: SampledTrace<T>, item: T, event: DraftEvent): void {
    const bytes = heldEventBytes(event, (trace.seen ??= new Set()));
    trace.held.push(item);
    trace.bytes += bytes;
    this.heldBytes += bytes;
    if (this.heldBytes <= this.maxBufferedBytes) return;
    // A trace that passes the bound by itself goes first, then the oldest, until the rest fits.
    if (trace.bytes > this.maxBufferedBytes) this.decide(trace, `its held events passed maxBufferedBytes (${this.maxBufferedBytes})`);
    while (this.heldBytes > this.maxBufferedBytes && this.orderHead < this.order.length) {
      const oldest = this.order[this.orderHead++]!;
      if (oldest.decision === UNDECIDED) {
        this.decide(oldest, `its events held with other open traces' passed maxBufferedBytes (${this.maxBufferedBytes})`);
      }
    }
  }

  /**
   * Decides the traces that completed during the delivery pass that just ended, and reports the
   * drops since the last report. Returns whether it did anything (a release or a report may have
   * queued events).
   */
  settle(): boolean {
    if (this.completing.length === 0 && this.unreportedDrops === 0) return false;
    const completed = this.completing;
    this.completing = [];
    // A trace that gained a late child since (open again) waits for it.
    for (const trace of completed) if (trace.open === 0 && trace.decision === UNDECIDED) this.decide(trace, undefined);
    this.report();
    return true;
  }

  /** Decides every trace still held, with what is known of it now (shutdown, exit); later events follow. */
  decideAll(): void {
    this.completing = [];
    const order = this.order;
    for (let i = this.orderHead; i < order.length; i++) {
      if (order[i]!.decision === UNDECIDED) this.decide(order[i]!, "decided at shutdown before its root ended");
    }
    this.order = [];
    this.orderHead = 0;
    this.report();
  }

  /** Estimated bytes held now (for tests and the bench). */
  get bufferedBytes(): number {
    return this.heldBytes;
  }

  private traceOf(uuid: string | null | undefined): SampledTrace<T> | undefined {
    if (uuid === null || uuid === undefined) return undefined;
    return this.open.get(uuid) ?? this.recent.get(uuid) ?? this.older.get(uuid);
  }

  private begin(root: DraftEvent): SampledTrace<T> {
    const trace = new SampledTrace<T>(root);
    this.undecidedCount++;
    if (this.order.length - this.orderHead > 2 * this.undecidedCount + 64) {
      this.order = this.order.slice(this.orderHead).filter((t) => t.decision === UNDECIDED);
      this.orderHead = 0;
    }
    this.order.push(trace);
    return trace;
  }

  private remember(uuid: string, trace: SampledTrace<T>): void {
    if (this.recent.size >= RECENT_CAPACITY / 2) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(uuid, trace);
  }

  /** `early` says why a trace is decided before its root ended, for the diagnostic. */
  private decide(trace: SampledTrace<T>, early: string | undefined): void {
    this.undecidedCount--;
    // The ended scopes leave the open ones; a complete trace stays findable by its root (an
    // evaluation of the run), one decided early by each (its later events need them).
    for (const uuid of trace.ended) {
      this.open.delete(uuid);
      if (trace.open > 0) this.remember(uuid, trace);
    }
    if (trace.open === 0) this.remember(trace.rootUuid, trace);
    trace.ended = [];
    this.heldBytes -= trace.bytes;
    const held = trace.held;
    trace.held = [];
    trace.bytes = 0;
    trace.seen = undefined;
    const dropped = this.dropReason(trace);
    if (dropped === undefined) {
      trace.decision = KEPT;
      this.hooks.release(held);
      return;
    }
    trace.decision = DROPPED;
    this.unreportedDrops++;
    this.lastDrop = { traceId: trace.traceId, why: early === undefined ? dropped : `${dropped} (${early})` };
  }

  /** Undefined when the trace is kept, else why it is dropped. */
  private dropReason(trace: SampledTrace<T>): string | undefined {
    const keep = this.keep;
    if (keep.errors === true && trace.error) return undefined;
    if (keep.suspended === true && trace.suspended) return undefined;
    if (keep.slowerThanMs !== undefined && trace.durationMs > keep.slowerThanMs) return undefined;
    if (keep.costAboveUsd !== undefined && trace.costUsd > keep.costAboveUsd) return undefined;
    if (trace.callerSampled !== undefined) return trace.callerSampled ? undefined : "as its caller did (W3C sampled flag 0)";
    const own = this.thresholdByRoot.get(trace.rootName);
    if (keptByRatio(trace.traceId, own ?? this.threshold)) return undefined;
    return own === undefined ? "by ratio" : "by its root's ratioByAgent";
  }

  /** Counts the drops since the last report at once (the message names the last one), and reports them as the metric. */
  private report(): void {
    const count = this.unreportedDrops;
    if (count === 0) return;
    this.unreportedDrops = 0;
    const last = this.lastDrop!;
    this.diagnostics.record(DROPPED_TRACES_CODE, `trace ${last.traceId} dropped ${last.why}; no keep rule matched`, count);
    this.hooks.reportDrops(count);
  }
}
