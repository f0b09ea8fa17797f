import type { Json, JsonObject } from "../../events/json.js";
import { META_ERROR_TYPE, META_STREAM_INCOMPLETE } from "../../events/wire-names.js";
import { ChunkTiming } from "../../runtime/stream-record.js";
import { SseParser } from "../../wire/sse.js";
import { WireStreamError, type StreamAssembler, type WireCodec, type WireStreamEvent } from "../../wire/index.js";
import { contentFreeReply } from "./content-free.js";
import { errorTypeOfStatus, failAborted, isAbort } from "./failures.js";
import type { RecordedCall } from "./recorded-call.js";

/** How a call's reply is recorded. */
export interface ReplyShape {
  /** the dialect's codec (assembles streams, strips content); undefined for a reply recorded as it came */
  codec: WireCodec | undefined;
  captureContent: boolean;
  /** what the recorded reply becomes first (an embeddings reply loses its vectors) */
  transform?: (reply: Json) => Json;
  /** the app's abort signal for the call, when it gave one */
  signal?: AbortSignal;
}

function recorded(reply: Json, shape: ReplyShape): Json {
  const shaped = shape.transform === undefined ? reply : shape.transform(reply);
  return shape.captureContent || shape.codec === undefined ? shaped : contentFreeReply(shape.codec, shaped);
}

function parsed(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/**
 * Reads `response` — a copy of the provider's answer, made before the SDK reads its own — and ends
 * `call` with it: a JSON reply as it came; server-sent events assembled by the dialect's codec
 * into the reply a non-streamed call records, with the time to the first event and between events;
 * a non-2xx answer as a failure with its status and body. The app's copy is untouched: it
 * iterates, converts and aborts as the SDK made it. Never rejects.
 */
export async function recordReply(call: RecordedCall, response: Response, shape: ReplyShape): Promise<void> {
  try {
    if (!response.ok) await recordHttpError(call, response);
    else if (shape.codec !== undefined && (response.headers.get("content-type") ?? "").includes("text/event-stream"))
      await recordStream(call, response, shape.codec, shape);
    else await recordJson(call, response, shape);
  } catch (error) {
    // a bug here must not become an unhandled rejection in the app
    call.fail(error);
  }
}

async function recordJson(call: RecordedCall, response: Response, shape: ReplyShape): Promise<void> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    failRead(call, error, shape.signal);
    return;
  }
  call.end(recorded(parsed(text), shape));
}

async function recordHttpError(call: RecordedCall, response: Response): Promise<void> {
  let body: Json = null;
  try {
    body = parsed(await response.text());
  } catch {
    // the status alone is still worth recording
  }
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  const error = new Error(`${response.status} ${typeof message === "string" ? message : response.statusText}`);
  call.fail(error, { status: response.status, body }, { [META_ERROR_TYPE]: errorTypeOfStatus(response.status) });
}

function failRead(call: RecordedCall, error: unknown, signal: AbortSignal | undefined, partial?: Json, metadata?: JsonObject): void {
  if (isAbort(error, signal)) failAborted(call, error, signal, partial, metadata);
  else call.fail(error, partial, { ...metadata, [META_ERROR_TYPE]: "connection_error" });
}

/** One stream's events as they arrive: timed, and assembled until the dialect's terminal event. */
class StreamRecord {
  readonly timing: ChunkTiming;
  private readonly assembler: StreamAssembler;
  /** the first event the codec refused (an error event, or one it cannot read): later ones are only timed */
  broke: unknown;
  events = 0;

  constructor(
    private readonly codec: WireCodec,
    startedAtMs: number,
  ) {
    this.assembler = codec.streamAssembler();
    this.timing = new ChunkTiming(startedAtMs * 1000);
  }

  get finished(): boolean {
    return this.assembler.finished;
  }

  take(events: readonly WireStreamEvent[]): void {
    for (const event of events) {
      if (this.assembler.finished) return;
      this.events++;
      this.timing.arrived(performance.now() * 1000);
      if (this.broke !== undefined) continue;
      try {
        this.assembler.push(event);
      } catch (error) {
        this.broke = error;
      }
    }
  }

  /** The reply assembled so far and the metadata that says when it is not whole. */
  result(shape: ReplyShape): { reply: Json; metadata: JsonObject } {
    let reply: Json = null;
    let incomplete: string | undefined;
    try {
      reply = recorded(this.codec.encodeResponse(this.assembler.result()), shape);
      incomplete = this.assembler.incomplete();
    } catch (error) {
      incomplete = error instanceof Error ? error.message : String(error);
    }
    if (this.broke !== undefined) incomplete = this.broke instanceof Error ? this.broke.message : String(this.broke);
    const metadata: JsonObject = this.timing.metadata();
    if (incomplete !== undefined) metadata[META_STREAM_INCOMPLETE] = incomplete;
    return { reply, metadata };
  }
}

async function recordStream(call: RecordedCall, response: Response, codec: WireCodec, shape: ReplyShape): Promise<void> {
  const reader = response.body?.getReader();
  const stream = new StreamRecord(codec, call.startedAtMs);
  if (reader === undefined) {
    const { reply, metadata } = stream.result(shape);
    call.end(reply, metadata);
    return;
  }
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      stream.take(parser.push(decoder.decode(value, { stream: true })));
      if (stream.finished) break;
    }
    if (!stream.finished) {
      stream.take(parser.push(decoder.decode()));
      const last = parser.end();
      if (last !== undefined) stream.take([last]);
    }
  } catch (error) {
    const { reply, metadata } = stream.result(shape);
    failRead(call, error, shape.signal, stream.events > 0 ? reply : undefined, metadata);
    return;
  }
  // Past the terminal event nothing is recorded: this copy stops reading (the app's goes on).
  if (stream.finished) void reader.cancel().catch(() => undefined);
  const { reply, metadata } = stream.result(shape);
  // An error event: the SDK throws it to the app, so the call failed.
  if (stream.broke instanceof WireStreamError) call.fail(stream.broke, reply, metadata);
  else call.end(reply, metadata);
}
