import { isJsonObject, type Json } from "../events/json.js";
import { otelIdHex } from "../events/otel-ids.js";
import { traceLinkOf } from "../events/trace-link.js";
import { parseTraceparent, TRACEPARENT_KEY } from "../events/traceparent.js";
import { META_RESUME_OF, META_STATUS_CODE, PENDING_REQUEST_SCHEMA, TOOL_ANSWER_MARK } from "../events/wire-names.js";
import { recordedCost } from "../wire/pricing.js";
import type { DraftEvent } from "./event-stages.js";

/** Where a trace stands: held while undecided, then kept (delivered) or dropped, for good. */
export const UNDECIDED = 0;
export const KEPT = 1;
export const DROPPED = 2;
export type Decision = typeof UNDECIDED | typeof KEPT | typeof DROPPED;

function metadataValue(metadata: Json, key: string): Json | undefined {
  return isJsonObject(metadata) ? metadata[key] : undefined;
}

/**
 * One trace as this process holds it: the part under one root, from its start until every scope
 * in it has ended. It records what the keep rules ask about, read from the events as emitted
 * (before sanitizers, which may strip the very keys a rule reads), and holds the delivered events
 * of `T` until the decision.
 */
export class SampledTrace<T> {
  /** The OpenTelemetry trace id (32 hex digits), as the exporters derive it. */
  readonly traceId: string;
  /** The root's name, which `ratioByAgent` is keyed by. */
  readonly rootName: string;
  readonly rootUuid: string;
  /** What the caller of a continued trace said (its W3C sampled flag); undefined when none did. */
  readonly callerSampled: boolean | undefined;
  /** Scopes started in the trace and not yet ended. */
  open = 0;
  /** Scopes of the trace that ended while it was undecided. */
  ended: string[] = [];
  firstUs = Number.POSITIVE_INFINITY;
  lastUs = Number.NEGATIVE_INFINITY;
  error = false;
  suspended = false;
  costUsd = 0;
  decision: Decision = UNDECIDED;
  /** Estimated bytes of `held`. */
  bytes = 0;
  held: T[] = [];
  /** The long-lived trees the held events share, counted once (see heldEventBytes); made on the first hold. */
  seen: Set<object> | undefined;

  /** The trace a root start begins: the remote trace it continues, else one rooted at itself. */
  constructor(root: DraftEvent) {
    this.rootName = root.name;
    this.rootUuid = root.uuid;
    const link = traceLinkOf(root);
    let traceId = otelIdHex(link?.rootUuid ?? root.uuid);
    let callerSampled: boolean | undefined;
    if (link !== undefined && (link.traceFlags !== undefined || link.tracestate !== undefined)) {
      callerSampled = ((link.traceFlags ?? 1) & 1) === 1;
    }
    // A root started under the app's active OpenTelemetry span records that span's traceparent.
    const recorded = metadataValue(root.metadata, TRACEPARENT_KEY);
    const parent = typeof recorded === "string" ? parseTraceparent(recorded) : undefined;
    if (parent !== undefined) {
      traceId = parent.traceId;
      callerSampled ??= parent.traceFlags === 1;
    }
    this.traceId = traceId;
    this.callerSampled = callerSampled;
  }

  /** Notes what a rule may ask about `event`, one of this trace's, as it was emitted. */
  note(event: DraftEvent, severityKey: string): void {
    const us = event.timestamp;
    if (typeof us === "number") {
      if (us < this.firstUs) this.firstUs = us;
      if (us > this.lastUs) this.lastUs = us;
    }
    if (event.kind === "mark") {
      if (event.data_schema?.name === PENDING_REQUEST_SCHEMA.name || event.name === TOOL_ANSWER_MARK) this.suspended = true;
      if (metadataValue(event.metadata, severityKey) === "error") this.error = true;
    } else if (event.scope_category === "start") {
      // A resumed run answers a suspended call of this trace.
      if (metadataValue(event.metadata, META_RESUME_OF) !== undefined) this.suspended = true;
    } else {
      if (metadataValue(event.metadata, META_STATUS_CODE) === "ERROR") this.error = true;
      if (event.category === "llm") {
        const cost = recordedCost(event.category_profile);
        if (cost !== undefined && cost.currency === "USD" && cost.total > 0) this.costUsd += cost.total;
      }
    }
  }

  /** Milliseconds from the first start to the latest event seen. */
  get durationMs(): number {
    return this.lastUs > this.firstUs ? (this.lastUs - this.firstUs) / 1000 : 0;
  }
}
