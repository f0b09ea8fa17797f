import type { Json } from "../events/json.js";
import type { WireResponse, WireStreamEvent } from "../wire/types.js";
import type { RecordedCall, Recording } from "./recording.js";
import type { Route } from "./routes.js";
import { firstDifference, transcriptOf } from "./transcript.js";

/** A request that differed from the recorded one at its position (strict replay). */
export interface ReplayMismatch {
  /** 0-based position of the recorded call, in the order the `llm` scopes started */
  call: number;
  /** JSON pointer into the received request body */
  path: string;
  expected: Json;
  actual: Json;
}

/** What the server sends: a JSON (or text) body with a status, or a stream of server-sent events. */
export type ReplayReply = { status: number; body: Json | string } | { status: 200; events: WireStreamEvent[] };

function errorReply(status: number, type: string, message: string, extra: Record<string, Json> = {}): ReplayReply {
  return { status, body: { error: { type, message, ...extra } } };
}

/**
 * The replay's state: which recorded call comes next, how many were served, what did not match.
 * Strict mode compares each request's transcript with the recorded one at its position.
 */
export class ReplaySession {
  private next = 0;
  private served = 0;
  readonly mismatches: ReplayMismatch[] = [];
  /** The last call served as a recorded failure: a client's retry of it gets the same failure. */
  private lastFailure: RecordedCall | undefined;

  constructor(
    private readonly recording: Recording,
    private readonly strict: boolean,
    private readonly onMismatch?: (mismatch: ReplayMismatch) => void,
  ) {}

  get servedCount(): number {
    return this.served;
  }

  get callCount(): number {
    return this.recording.calls.length;
  }

  answer(route: Route, body: Json, stream: boolean): ReplayReply {
    const calls = this.recording.calls;
    const call = calls[this.next];
    const mismatch = this.strict && call !== undefined ? this.compare(call, route, body) : undefined;
    // A client's retry of a call that failed: the recorded failure again, without using up the next call.
    if ((call === undefined || mismatch !== undefined) && this.isRetryOfFailure(route, body))
      return this.serve(this.lastFailure!, route, stream);
    if (call === undefined) {
      return errorReply(410, "replay_exhausted", `the recording has ${calls.length} model calls; this is call ${this.next + 1}`);
    }
    if (mismatch !== undefined) {
      this.mismatches.push(mismatch);
      this.onMismatch?.(mismatch);
      const message = `request does not match recorded call ${call.index} at ${mismatch.path || "(the dialect)"}`;
      return errorReply(409, "replay_mismatch", message, {
        call: call.index,
        path: mismatch.path,
        expected: mismatch.expected,
        actual: mismatch.actual,
      });
    }
    this.next++;
    this.served++;
    this.lastFailure = call.failure !== undefined ? call : undefined;
    return this.serve(call, route, stream);
  }

  /** Strict mode only: loose mode cannot tell a retry from the next call. */
  private isRetryOfFailure(route: Route, body: Json): boolean {
    return this.strict && this.lastFailure !== undefined && this.compare(this.lastFailure, route, body) === undefined;
  }

  private compare(call: RecordedCall, route: Route, body: Json): ReplayMismatch | undefined {
    if (route.codec !== call.codec) return { call: call.index, path: "", expected: call.codec.dialect, actual: route.codec.dialect };
    const difference = firstDifference(route.codec, body, call.transcript ?? { system: "", messages: [] }, transcriptOf(route.codec, body));
    return difference === undefined ? undefined : { call: call.index, ...difference };
  }

  private serve(call: RecordedCall, route: Route, stream: boolean): ReplayReply {
    const failure = call.failure;
    if (failure !== undefined) {
      if (failure.status !== undefined) return { status: failure.status, body: failure.body ?? null };
      return errorReply(502, "replay_recorded_failure", failure.message, { call: call.index });
    }
    const recorded = call.response!;
    if (!stream && route.codec === call.codec) return { status: 200, body: recorded };
    const response: WireResponse = call.codec.decodeResponse(recorded);
    return stream
      ? { status: 200, events: route.codec.encodeStream(response) }
      : { status: 200, body: route.codec.encodeResponse(response) };
  }
}
