import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { AtofEvent, ScopeEvent } from "../events/types.js";
import { statusCodeOf } from "../events/end-status.js";
import { codecForEvent } from "../wire/registry.js";
import { requestBodyOf } from "../wire/request-body.js";
import type { WireCodec } from "../wire/types.js";
import { EntryInterner, transcriptOf, type Transcript } from "./transcript.js";

/** A failed model call as recorded: the provider's HTTP status and (sanitized) error body when known. */
export interface RecordedFailure {
  status?: number;
  body?: Json;
  message: string;
}

/** Where an event's line sits in a recording file: its first byte and its length in bytes. */
export interface LineRef {
  offset: number;
  bytes: number;
}

/**
 * One recorded model call, in the order the `llm` scopes started: what the replay needs to know
 * up front. Its content (the request's transcript, the reply, the failure) is read when served.
 */
export interface RecordedCall {
  /** 0-based, in start order */
  index: number;
  name: string;
  codec: WireCodec;
  /** whether the request's content was recorded */
  hasRequest: boolean;
  /** whether the call's end was recorded */
  ended: boolean;
  /** how the call ended: a reply whose content was recorded, a failure, or nothing replayable */
  outcome: "response" | "failure" | "none";
}

/** The content of the calls of a recording, read on demand (from memory, or from the recording file). */
export interface RecordingContent {
  /** the transcript of the call's recorded request */
  transcript(call: RecordedCall): Promise<Transcript>;
  /** the provider reply body of a call whose outcome is `response` */
  response(call: RecordedCall): Promise<JsonObject>;
  /** the recorded failure of a call whose outcome is `failure` */
  failure(call: RecordedCall): Promise<RecordedFailure>;
  /** releases what the content holds (an open file) */
  close(): Promise<void>;
}

/** The model calls of a recording, their content, and why it cannot be replayed when it cannot. */
export interface Recording {
  calls: RecordedCall[];
  /** One line per call whose request or response content is missing (capture off, a sanitizer withheld it). */
  missingContent: string[];
  content: RecordingContent;
}

export function failureOf(end: ScopeEvent): RecordedFailure {
  const metadata = isJsonObject(end.metadata) ? end.metadata : {};
  const description = metadata["otel.status_description"];
  const message = typeof description === "string" ? description : "the recorded model call failed";
  const data = end.data;
  if (isJsonObject(data) && typeof data["status"] === "number" && Number.isInteger(data["status"])) {
    const status = data["status"];
    if (status >= 400 && status <= 599) return { status, body: data["body"] ?? null, message };
  }
  return { message };
}

/** The codec of an `llm` start, and its request body when its content was recorded. */
export function requestOf(event: ScopeEvent): { codec: WireCodec; body: Json | undefined } | undefined {
  const body = requestBodyOf(event.data);
  const codec = codecForEvent({ dataSchema: event.data_schema, name: event.name, which: "request", ...(body ? { body } : {}) });
  return codec === undefined ? undefined : { codec, body: body ?? undefined };
}

/** A call's content kept in memory, for a recording given as events. */
interface HeldContent {
  transcript?: Transcript;
  response?: JsonObject;
  failure?: RecordedFailure;
}

/**
 * Collects the model calls of a stream of ATOF events, pairing each `llm` start with its end by
 * uuid. Given each event's line in the file (`push(event, line)`), a call keeps only where its
 * lines are, and its content is read from the file when it is served; else the content is held
 * (the transcripts sharing their texts, see `EntryInterner`).
 */
export class RecordingCollector {
  private readonly calls: RecordedCall[] = [];
  private readonly open = new Map<string, RecordedCall>();
  private readonly held = new Map<RecordedCall, HeldContent>();
  private readonly lines = new Map<RecordedCall, { start: LineRef; end?: LineRef }>();
  private readonly interner = new EntryInterner();

  push(event: AtofEvent, line?: LineRef): void {
    if (event.kind !== "scope" || event.category !== "llm") return;
    if (event.scope_category === "start") this.start(event, line);
    else this.end(event, line);
  }

  private start(event: ScopeEvent, line: LineRef | undefined): void {
    const request = requestOf(event);
    if (request === undefined) return; // not a model call of a dialect relaytrace speaks
    const { codec, body } = request;
    const call: RecordedCall = {
      index: this.calls.length,
      name: event.name,
      codec,
      hasRequest: body !== undefined,
      ended: false,
      outcome: "none",
    };
    this.calls.push(call);
    this.open.set(event.uuid, call);
    if (line !== undefined) this.lines.set(call, { start: line });
    // Only the transcript is kept of the request: the tools and settings it repeats are never compared.
    else if (body !== undefined) this.held.set(call, { transcript: transcriptOf(codec, body, this.interner) });
  }

  private end(event: ScopeEvent, line: LineRef | undefined): void {
    const call = this.open.get(event.uuid);
    if (call === undefined) return;
    this.open.delete(event.uuid);
    call.ended = true;
    if (statusCodeOf(event) === "ERROR") call.outcome = "failure";
    else if (isJsonObject(event.data) && call.codec.looksLikeResponse(event.data)) call.outcome = "response";
    const lines = this.lines.get(call);
    if (lines !== undefined && line !== undefined) lines.end = line;
    else if (lines === undefined) {
      const held = this.held.get(call) ?? {};
      if (call.outcome === "failure") held.failure = failureOf(event);
      if (call.outcome === "response") held.response = event.data as JsonObject;
      this.held.set(call, held);
    }
  }

  private missingContent(): string[] {
    const missing: string[] = [];
    for (const call of this.calls) {
      if (!call.hasRequest) missing.push(`call ${call.index} (${call.name}) has no recorded request content`);
      else if (!call.ended) missing.push(`call ${call.index} (${call.name}) has no end: the recording stopped during it`);
      else if (call.outcome === "none") missing.push(`call ${call.index} (${call.name}) has no recorded response content`);
    }
    return missing;
  }

  /** The recording of the events pushed so far, its content held in memory. */
  result(): Recording {
    const held = (call: RecordedCall) => this.held.get(call) ?? {};
    const content: RecordingContent = {
      transcript: async (call) => held(call).transcript ?? { system: "", messages: [] },
      response: async (call) => held(call).response!,
      failure: async (call) => held(call).failure!,
      close: async () => undefined,
    };
    return { calls: this.calls, missingContent: this.missingContent(), content };
  }

  /** The recording of the lines pushed so far, its content read from the file by `readLine`. */
  resultFromLines(readLine: (line: LineRef) => Promise<AtofEvent>, close: () => Promise<void>): Recording {
    const lineOf = (call: RecordedCall, which: "start" | "end"): Promise<AtofEvent> => {
      const line = this.lines.get(call)?.[which];
      if (line === undefined) throw new Error(`call ${call.index} has no recorded ${which}`);
      return readLine(line);
    };
    const content: RecordingContent = {
      transcript: async (call) => {
        const request = requestOf((await lineOf(call, "start")) as ScopeEvent);
        return request?.body !== undefined ? transcriptOf(call.codec, request.body) : { system: "", messages: [] };
      },
      response: async (call) => (await lineOf(call, "end")).data as JsonObject,
      failure: async (call) => failureOf((await lineOf(call, "end")) as ScopeEvent),
      close,
    };
    return { calls: this.calls, missingContent: this.missingContent(), content };
  }
}

/** The model calls of `events` (an array, or a stream), their content held in memory. */
export async function collectRecording(events: Iterable<AtofEvent> | AsyncIterable<AtofEvent>): Promise<Recording> {
  const collector = new RecordingCollector();
  for await (const event of events) collector.push(event);
  return collector.result();
}
