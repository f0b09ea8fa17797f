import type { AtofLine } from "../events/atof-lines.js";
import { serializeEventPieces } from "../events/atof-serialize.js";
import type { ScopeStack } from "../events/scope-stack.js";
import type { AtofEvent } from "../events/types.js";
import type { DiagnosticCounter } from "../wire/diagnostics.js";
import { thrownMessage } from "./event-factory.js";
import { EventStages, type DraftEvent, type StageHooks, type StagedEvent, type Transform } from "./event-stages.js";
import { RouteTable, type PublisherRegistries, type Route, type RouteKind } from "./event-routes.js";
import { ReentrantEmissions, type Descent } from "./reentrant-emission.js";
import { DROPPED, KEPT, TailSampler, type SampledTrace } from "./tail-sampler.js";
import { SubscriberCalls, type CallbackError } from "./subscriber-calls.js";
import type { SamplingOptions } from "./types.js";

export type { CallbackError, PublisherRegistries, Route, RouteKind };
export { MAX_REENTRANT_DEPTH, MAX_REENTRANT_EVENTS } from "./reentrant-emission.js";
export { FROZEN_DATA, FROZEN_METADATA, FROZEN_PROFILE } from "./event-stages.js";
export type { DraftEvent, Transform } from "./event-stages.js";

interface Publication extends StagedEvent, Descent {
  /** Set when the stages ran on the emitting call (see publishLine): the line to deliver. */
  staged: StagedLine | undefined;
}

/** An event serialized on its emitting call. */
interface StagedLine {
  line: AtofLine;
  /** The event the line was serialized from (unfrozen; read by the line receivers during their call only). */
  event: AtofEvent | undefined;
  /** Events the stages' callbacks emitted on the emitting call: published when this one is delivered, as they would have been. */
  spawned: [DraftEvent, Route, Transform | undefined, number][] | undefined;
}

/** A publication of `event`, every field present from the start (one shape for all). */
function publicationOf(event: DraftEvent, route: Route, transform: Transform | undefined, frozen: number): Publication {
  return { event, route, transform, frozen, depth: 0, lineage: undefined, staged: undefined };
}

/** What a runtime with `sampling` gives its publisher: the options, and how to report drops as a metric. */
export interface PublisherSampling {
  options: SamplingOptions;
  namespace: string;
  reportDrops: (count: number) => void;
}

/** Pending publications past which delivery moves from the check phase to the microtask queue. */
const EAGER_DRAIN_BACKLOG = 256;

const messageOf = thrownMessage;

/**
 * One FIFO queue per runtime. Emission snapshots the event and the registrations visible at that
 * moment; delivery runs later, one publication at a time: transform → metadata injectors (fail
 * open) → event sanitizers (fail closed) → subscribers (isolated). Events emitted from inside a
 * callback queue behind the current one and are never delivered re-entrantly; their chains are
 * bounded (MAX_REENTRANT_DEPTH, MAX_REENTRANT_EVENTS) so that a subscriber that emits for every
 * event it receives cannot keep the dispatcher busy forever. No failure of a stage drops an
 * event: what cannot be delivered safely is withheld and the event shell is still delivered.
 */
export class Publisher implements StageHooks {
  private queue: (Publication | undefined)[] = [];
  private head = 0;
  private scheduled = false;
  private eagerScheduled = false;
  private readonly drainTask = (): void => {
    this.scheduled = false;
    this.drain();
  };
  private readonly eagerDrainTask = (): void => {
    this.eagerScheduled = false;
    this.drain();
  };
  private draining = false;
  private enqueued = 0;
  private delivered = 0;
  private waiters: { target: number; resolve: () => void }[] = [];
  /** Depth of dispatcher callbacks running now; barriers refuse to run inside one. */
  callbackDepth = 0;
  /** The publication being delivered now (events emitted meanwhile descend from it). */
  private delivering: Publication | undefined;
  /** The line whose event's stages run on its emitting call now (see publishLine). */
  private staging: StagedLine | undefined;
  /** Calls of the app's callbacks: failures, subscriber promises, the callback running now. */
  private readonly calls: SubscriberCalls;
  private readonly reentrant: ReentrantEmissions;
  /** The last callback failure (runtime.lastCallbackError()); the runtime clears it. */
  get lastCallbackError(): CallbackError | undefined {
    return this.calls.lastError;
  }

  set lastCallbackError(value: CallbackError | undefined) {
    this.calls.lastError = value;
  }

  private readonly routes: RouteTable;
  private readonly stages: EventStages;
  /** Undefined unless the runtime samples: then the one check each delivery makes. */
  readonly sampler: TailSampler<Publication> | undefined;

  constructor(
    registries: PublisherRegistries,
    private readonly diagnostics: DiagnosticCounter,
    private readonly maxQueueSize: number,
    sampling?: PublisherSampling,
  ) {
    this.routes = new RouteTable(registries);
    this.reentrant = new ReentrantEmissions(diagnostics);
    this.calls = new SubscriberCalls(diagnostics);
    this.stages = new EventStages(diagnostics, this);
    if (sampling !== undefined) {
      this.sampler = new TailSampler<Publication>(sampling.options, sampling.namespace, diagnostics, {
        release: (items) => this.release(items),
        reportDrops: sampling.reportDrops,
      });
    }
  }

  /** What an event emitted from `stack` will pass through, snapshotted now (see RouteTable); undefined when nothing listens. */
  route(stack: ScopeStack, kind: RouteKind): Route | undefined {
    return this.routes.route(stack, kind);
  }

  /**
   * Whether an event on a route whose subscribers all take lines is serialized on the emitting
   * call now: not under tail sampling (which decides on the event as delivered) and not from
   * inside a runtime callback (whose emissions queue behind the event being handled).
   */
  get takesLines(): boolean {
    return this.sampler === undefined && this.callbackDepth === 0;
  }

  /**
   * Whether an event for line subscribers is delivered before its emitting call returns: nothing
   * is queued before it. Its fields are then read only during the call, and an event whose
   * stages run no callback may hold the app's plain JSON as it is (serialized before the app can change it).
   */
  get deliversLinesNow(): boolean {
    return this.takesLines && this.head >= this.queue.length && !this.draining;
  }

  /**
   * Runs the stages on the emitting call, serializes the event to its ATOF line, and hands the
   * line to every subscriber of the route (each has a line receiver): at once when nothing is
   * queued before it, else queued in its turn. The line is the snapshot: what the app changes
   * after the call cannot reach it. Nothing is frozen: no subscriber receives the event object.
   */
  publishLine(event: DraftEvent, route: Route, transform: Transform | undefined): void {
    const publication = publicationOf(event, route, transform, 0);
    const staged: StagedLine = { line: "", event: undefined, spawned: undefined };
    publication.staged = staged;
    const outer = this.delivering;
    this.staging = staged;
    this.delivering = publication;
    this.callbackDepth++;
    let prepared: AtofEvent;
    try {
      try {
        prepared = this.stages.prepare(publication, false);
      } catch (error) {
        prepared = this.stages.shell(event, error);
      }
    } finally {
      this.callbackDepth--;
      this.delivering = outer;
      this.staging = undefined;
    }
    try {
      staged.line = serializeEventPieces(prepared);
    } catch (error) {
      // Not JSON after all (a getter or Proxy that changed its answer): the shell, never the payload.
      prepared = this.stages.shell(event, error);
      staged.line = serializeEventPieces(prepared);
    }
    staged.event = prepared;
    // Queued in its turn behind what is queued, or when its stages emitted events: those follow
    // it, behind whatever the app emits before the queue is delivered, as from the dispatcher.
    if (this.head < this.queue.length || this.draining || staged.spawned !== undefined) {
      this.enqueue(publication);
      return;
    }
    // Nothing is queued before it: delivering now is delivering in order.
    this.enqueued++;
    this.deliverNow(publication);
    this.delivered++;
    if (this.waiters.length > 0) this.resolveWaiters();
  }

  /** Queues `event`; `frozen` says which payload fields were frozen as they were copied. */
  publish(event: DraftEvent, route: Route, transform: Transform | undefined, frozen: number): void {
    if (this.staging !== undefined) {
      // Emitted by a stage running on the emitting call: it follows that event, as from the dispatcher.
      (this.staging.spawned ??= []).push([event, route, transform, frozen]);
      return;
    }
    this.enqueue(publicationOf(event, route, transform, frozen));
  }

  private enqueue(publication: Publication): void {
    const event = publication.event;
    if (this.queue.length - this.head >= this.maxQueueSize) {
      this.diagnostics.record("queue_overflow", `event queue full (${this.maxQueueSize}); event ${event.name} dropped`);
      return;
    }
    const parent = this.callbackDepth > 0 ? this.delivering : undefined;
    if (parent !== undefined && !this.reentrant.admit(parent, publication, event.name, this.calls.runningKind, this.calls.runningName))
      return;
    this.queue.push(publication);
    this.enqueued++;
    if (this.draining) return; // the running drain picks it up
    const backlog = this.queue.length - this.head;
    if (!this.scheduled) {
      // Deliver after the app's pending I/O callbacks, so exporter work overlaps with waiting on
      // the network instead of delaying the request that is about to be written.
      this.scheduled = true;
      setImmediate(this.drainTask);
    } else if (backlog >= EAGER_DRAIN_BACKLOG && !this.eagerScheduled) {
      // An app that never yields to I/O (a tight loop of tool calls) would fill the queue before
      // the check phase comes: drain on the microtask queue instead, which such loops do run.
      this.eagerScheduled = true;
      queueMicrotask(this.eagerDrainTask);
    }
  }

  /** Notes which callback runs now. */
  running(kind: string, name: string): void {
    this.calls.running(kind, name);
  }

  /** How many events were enqueued so far (a watermark for "anything new since"). */
  get emittedCount(): number {
    return this.enqueued;
  }

  /** Resolves once everything enqueued before the call is delivered and its subscriber promises settled. */
  async flush(): Promise<void> {
    const target = this.enqueued;
    if (!this.draining) {
      // Delivered now, by the caller, not left to the drain some earlier emitter scheduled. On
      // Cloudflare Workers that drain belongs to the request that scheduled it: a request whose
      // flush only waited for it would be cancelled as idle, or the drain dropped with its request.
      this.scheduled = false;
      this.drain();
    }
    if (this.delivered < target) {
      await new Promise<void>((resolve) => this.waiters.push({ target, resolve }));
    }
    await this.calls.settled();
  }

  /**
   * Delivers everything queued, now: the process is exiting. Called from inside a subscriber
   * (one that called `process.exit()`) it delivers the rest too: that outer drain never resumes.
   */
  drainOnExit(): void {
    this.draining = false;
    this.drain();
    if (this.sampler !== undefined) {
      this.sampler.decideAll();
      this.drain();
    }
  }

  /**
   * Decides and delivers every trace the sampler still holds, once what is queued now is
   * delivered (shutdown, the flush before exit): nothing is left held when the process ends.
   */
  async releaseHeld(): Promise<void> {
    await this.flush();
    if (this.sampler === undefined) return;
    this.sampler.decideAll();
    await this.flush();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      do {
        while (this.head < this.queue.length) {
          const publication = this.queue[this.head]!;
          this.queue[this.head++] = undefined;
          try {
            this.deliver(publication);
          } catch (error) {
            this.diagnostics.record("event_delivery_failed", `event ${String(publication.event.name)}: ${messageOf(error)}`);
          }
          this.delivered++;
          if (this.head > 1024 && this.head * 2 > this.queue.length) {
            this.queue = this.queue.slice(this.head);
            this.head = 0;
          }
        }
        // Traces that completed in this pass are decided now; what that emits is delivered in the next.
      } while (this.sampler !== undefined && this.settleSampled());
      this.queue = [];
      this.head = 0;
    } finally {
      this.draining = false;
    }
    if (this.waiters.length > 0) this.resolveWaiters();
  }

  private resolveWaiters(): void {
    const ready = this.waiters.filter((w) => w.target <= this.delivered);
    this.waiters = this.waiters.filter((w) => w.target > this.delivered);
    for (const w of ready) w.resolve();
  }

  private deliver(publication: Publication): void {
    if (this.sampler !== undefined) this.deliverSampled(this.sampler, publication);
    else this.deliverNow(publication);
  }

  /**
   * `deliver` with tail sampling: the event is placed in its trace first, then delivered now
   * (outside any trace, or its trace kept), held as it was emitted (trace undecided: the stages
   * run only if it is kept) or left (trace dropped).
   */
  private deliverSampled(sampler: TailSampler<Publication>, publication: Publication): void {
    let trace: SampledTrace<Publication> | undefined;
    try {
      trace = sampler.admit(publication.event);
    } catch (error) {
      // A sampler failure must not lose the event: it is delivered as if not sampled.
      this.diagnostics.recordError("sampling_failed", error);
    }
    if (trace === undefined || trace.decision === KEPT) {
      this.deliverNow(publication);
    } else if (trace.decision !== DROPPED) {
      sampler.hold(trace, publication, publication.event);
    }
  }

  /** The stages, then every subscriber of the route: `deliver` for an event a sampler lets through. */
  private deliverNow(publication: Publication): void {
    const outer = this.delivering;
    this.delivering = publication;
    this.callbackDepth++;
    try {
      const staged = publication.staged;
      if (staged === undefined) {
        let delivered: AtofEvent;
        try {
          delivered = this.stages.prepare(publication);
        } catch (error) {
          delivered = this.stages.shell(publication.event, error);
        }
        for (const subscriber of publication.route.subscribers) this.calls.notify(subscriber, delivered);
      } else {
        this.calls.notifyLine(publication.route, staged.line, staged.event!);
        const spawned = staged.spawned;
        if (spawned !== undefined) for (const [event, route, transform, frozen] of spawned) this.publish(event, route, transform, frozen);
      }
    } finally {
      this.callbackDepth--;
      this.delivering = outer;
    }
  }

  /** Delivers a kept trace's held events in emission order, each as the publication it was (its callbacks' emissions count against it). */
  private release(held: readonly Publication[]): void {
    for (const publication of held) {
      try {
        this.deliverNow(publication);
      } catch (error) {
        this.diagnostics.record("event_delivery_failed", `event ${String(publication.event.name)}: ${messageOf(error)}`);
      }
    }
  }

  private settleSampled(): boolean {
    try {
      return this.sampler!.settle() && this.head < this.queue.length;
    } catch (error) {
      this.diagnostics.recordError("sampling_failed", error);
      return this.head < this.queue.length;
    }
  }

  fail(registry: string, name: string, error: unknown): void {
    this.calls.fail(registry, name, error);
  }
}
