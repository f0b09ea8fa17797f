import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { AtofEvent, ScopeEvent } from "../events/types.js";
import { statusCodeOf } from "../events/end-status.js";
import { codecForEvent } from "../wire/registry.js";
import { requestBodyOf } from "../wire/request-body.js";
import type { WireCodec } from "../wire/types.js";
import { TextInterner, transcriptOf, type Transcript } from "./transcript.js";

/** A failed model call as recorded: the provider's HTTP status and (sanitized) error body when known. */
export interface RecordedFailure {
  status?: number;
  body?: Json;
  message: string;
}

/** One recorded model call, in the order the `llm` scopes started. */
export interface RecordedCall {
  /** 0-based, in start order */
  index: number;
  name: string;
  codec: WireCodec;
  /** the transcript of the recorded request; undefined when its content was not recorded */
  transcript: Transcript | undefined;
  /** the provider reply body, when the call succeeded and its content was recorded */
  response: JsonObject | undefined;
  failure?: RecordedFailure;
  /** whether the call's end was recorded */
  ended: boolean;
}

/** The model calls of a recording, and why it cannot be replayed when it cannot. */
export interface Recording {
  calls: RecordedCall[];
  /** One line per call whose request or response content is missing (capture off, a sanitizer withheld it). */
  missingContent: string[];
}

function failureOf(end: ScopeEvent): RecordedFailure {
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

/** Collects the model calls of a stream of ATOF events, pairing each `llm` start with its end by uuid. */
export class RecordingCollector {
  private readonly calls: RecordedCall[] = [];
  private readonly open = new Map<string, RecordedCall>();
  private readonly interner = new TextInterner();

  push(event: AtofEvent): void {
    if (event.kind !== "scope" || event.category !== "llm") return;
    if (event.scope_category === "start") this.start(event);
    else this.end(event);
  }

  private start(event: ScopeEvent): void {
    const request = requestBodyOf(event.data);
    const codec = codecForEvent({
      dataSchema: event.data_schema,
      name: event.name,
      which: "request",
      ...(request ? { body: request } : {}),
    });
    if (codec === undefined) return; // not a model call of a dialect relaytrace speaks
    // Only the transcript is kept of the request: the tools and settings it repeats are never compared.
    const transcript = request ? transcriptOf(codec, request, this.interner) : undefined;
    const call: RecordedCall = { index: this.calls.length, name: event.name, codec, transcript, response: undefined, ended: false };
    this.calls.push(call);
    this.open.set(event.uuid, call);
  }

  private end(event: ScopeEvent): void {
    const call = this.open.get(event.uuid);
    if (call === undefined) return;
    this.open.delete(event.uuid);
    call.ended = true;
    if (statusCodeOf(event) === "ERROR") call.failure = failureOf(event);
    else if (isJsonObject(event.data) && call.codec.looksLikeResponse(event.data)) call.response = event.data;
  }

  result(): Recording {
    const missingContent: string[] = [];
    for (const call of this.calls) {
      if (call.transcript === undefined) missingContent.push(`call ${call.index} (${call.name}) has no recorded request content`);
      else if (!call.ended) missingContent.push(`call ${call.index} (${call.name}) has no end: the recording stopped during it`);
      else if (call.failure === undefined && call.response === undefined)
        missingContent.push(`call ${call.index} (${call.name}) has no recorded response content`);
    }
    return { calls: this.calls, missingContent };
  }
}

/** The model calls of `events` (an array, or a stream such as a file being read). */
export async function collectRecording(events: Iterable<AtofEvent> | AsyncIterable<AtofEvent>): Promise<Recording> {
  const collector = new RecordingCollector();
  for await (const event of events) collector.push(event);
  return collector.result();
}
