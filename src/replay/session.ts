import type { Json } from "../events/json.js";
import type { WireResponse, WireStreamEvent } from "../wire/types.js";
import type { RecordedCall, Recording } from "./recording.js";
import type { Route } from "./routes.js";
import { firstDifference, transcriptOf, type Transcript } from "./transcript.js";
import { keptValue } from "./kept-value.js";

/** A request that differed from the recorded one at its position (strict replay). */
export interface ReplayMismatch {
  /** 0-based position of the recorded call, in the order the `llm` scopes started */
  call: number;
  /** JSON pointer into the received request body */
  path: string;
  expected: Json;
  actual: Json;
  /** set when a kept mismatch's `expected` or `actual` was longer than KEPT_VALUE_CHARS and was cut */
  truncated?: true;
}

/** The mismatch as a session keeps it: `expected` and `actual` at most `limit` characters each, copied. */
function keptMismatch(mismatch: ReplayMismatch, limit: number): ReplayMismatch {
  const expected = keptValue(mismatch.expected, limit);
  const actual = keptValue(mismatch.actual, limit);
  return {
    call: mismatch.call,
    path: mismatch.path,
    expected: expected.value,
    actual: actual.value,
    ...(expected.cut || actual.cut ? { truncated: true as const } : {}),
  };
}

/** How many mismatches a session keeps (the first ones); it counts them all. */
export const KEPT_MISMATCHES = 100;
/** The most characters of `expected` or `actual` a kept mismatch holds (a text's, or another value's JSON text). */
export const KEPT_VALUE_CHARS = 4096;

/** What the server sends: a JSON (or text) body with a status, or a stream of server-sent events. */
export type ReplayReply = { status: number; body: Json | string } | { status: 200; events: WireStreamEvent[] };

function errorReply(status: number, type: string, message: string, extra: Record<string, Json> = {}): ReplayReply {
  return { status, body: { error: { type, message, ...extra } } };
}

/**
 * The replay's state: which recorded call comes next, how many were served, what did not match.
 * Strict mode compares each request's transcript with the recorded one at its position. Requests
 * are answered one at a time, in the order they arrive (each reads its recorded call's content).
 */
export class ReplaySession {
  private next = 0;
  private served = 0;
  /**
   * The first KEPT_MISMATCHES mismatches, their values cut to KEPT_VALUE_CHARS: a client retrying
   * a mismatched request against a recording of long prompts would otherwise keep a copy of the
   * whole prompt per retry. The 409 reply carries the values whole.
   */
  readonly mismatches: ReplayMismatch[] = [];
  private mismatched = 0;
  /** The last call served as a recorded failure: a client's retry of it gets the same failure. */
  private lastFailure: RecordedCall | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly recording: Recording,
    private readonly strict: boolean,
    private readonly onMismatch?: (mismatch: ReplayMismatch) => void,
  ) {}

  get servedCount(): number {
    return this.served;
  }

  /** Every mismatch so far, kept or not. */
  get mismatchCount(): number {
    return this.mismatched;
  }

  get callCount(): number {
    return this.recording.calls.length;
  }

  answer(route: Route, body: Json, stream: boolean): Promise<ReplayReply> {
    const reply = this.queue.then(() => this.answerNow(route, body, stream));
    this.queue = reply.catch(() => undefined);
    return reply;
  }

  private async answerNow(route: Route, body: Json, stream: boolean): Promise<ReplayReply> {
    const calls = this.recording.calls;
    const call = calls[this.next];
    const received = this.strict ? transcriptOf(route.codec, body) : undefined;
    const mismatch = received && call !== undefined ? await this.compare(call, route, body, received) : undefined;
    // A client's retry of a call that failed: the recorded failure again, without using up the next call.
    if ((call === undefined || mismatch !== undefined) && received && (await this.isRetryOfFailure(route, body, received)))
      return this.serve(this.lastFailure!, route, stream);
    if (call === undefined) {
      return errorReply(410, "replay_exhausted", `the recording has ${calls.length} model calls; this is call ${this.next + 1}`);
    }
    if (mismatch !== undefined) {
      this.mismatched++;
      if (this.mismatches.length < KEPT_MISMATCHES) this.mismatches.push(keptMismatch(mismatch, KEPT_VALUE_CHARS));
      this.onMismatch?.(mismatch);
      const message = `request does not match recorded call ${call.index} at ${mismatch.path || "(the dialect)"}`;
      return errorReply(409, "replay_mismatch", message, {
        call: call.index,
        path: mismatch.path,
        expected: mismatch.expected,
        actual: mismatch.actual,
      });
    }
    const reply = await this.serve(call, route, stream);
    this.next++;
    this.served++;
    this.lastFailure = call.outcome === "failure" ? call : undefined;
    return reply;
  }

  /** Strict mode only: loose mode cannot tell a retry from the next call. */
  private async isRetryOfFailure(route: Route, body: Json, received: Transcript): Promise<boolean> {
    return this.lastFailure !== undefined && (await this.compare(this.lastFailure, route, body, received)) === undefined;
  }

  private async compare(call: RecordedCall, route: Route, body: Json, received: Transcript): Promise<ReplayMismatch | undefined> {
    if (route.codec !== call.codec) return { call: call.index, path: "", expected: call.codec.dialect, actual: route.codec.dialect };
    const difference = firstDifference(route.codec, body, await this.recording.content.transcript(call), received);
    return difference === undefined ? undefined : { call: call.index, ...difference };
  }

  private async serve(call: RecordedCall, route: Route, stream: boolean): Promise<ReplayReply> {
    if (call.outcome === "failure") {
      const failure = await this.recording.content.failure(call);
      if (failure.status !== undefined) return { status: failure.status, body: failure.body ?? null };
      return errorReply(502, "replay_recorded_failure", failure.message, { call: call.index });
    }
    const recorded = await this.recording.content.response(call);
    if (!stream && route.codec === call.codec) return { status: 200, body: recorded };
    const response: WireResponse = call.codec.decodeResponse(recorded);
    return stream
      ? { status: 200, events: route.codec.encodeStream(response) }
      : { status: 200, body: route.codec.encodeResponse(response) };
  }
}
