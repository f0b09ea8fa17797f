import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "../events/json.js";
import { jsonText } from "../events/json-text.js";
import { streamAtofRecords } from "../events/atof-reader.js";
import { check, declareOptions, is } from "../events/option-spec.js";
import type { AtofEvent } from "../events/types.js";
import { collectRecording, type Recording } from "./recording.js";
import { collectRecordingFile } from "./recording-file.js";
import { routeOf } from "./routes.js";
import { ReplaySession, type ReplayMismatch, type ReplayReply } from "./session.js";

/** Options of `startReplayServer`: the recording (a file or events) and how to match. */
export interface ReplayServerOptions {
  /** an ATOF file to replay */
  file?: string;
  /** the recorded events (instead of `file`) */
  events?: Iterable<AtofEvent> | AsyncIterable<AtofEvent>;
  /** compare each request's transcript with the recorded one (default true); false answers by order */
  strict?: boolean;
  /** the port on 127.0.0.1 (default 0: the OS chooses) */
  port?: number;
}

const isIterable = (v: unknown): boolean =>
  typeof v === "object" &&
  v !== null &&
  (typeof (v as Iterable<unknown>)[Symbol.iterator] === "function" ||
    typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function");

const REPLAY_OPTIONS = declareOptions<ReplayServerOptions>("startReplayServer", {
  file: is.nonEmptyString,
  events: check("an iterable or async iterable of ATOF events", isIterable),
  strict: is.boolean,
  port: check("an integer from 0 to 65535", (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535),
});

/** A running replay: its base URL for every dialect, live counters, and `close()`. */
export interface ReplayServer {
  readonly url: string;
  /** how many model calls the recording holds */
  readonly calls: number;
  /** how many recorded calls were answered so far */
  readonly served: number;
  /**
   * requests that did not match the recording (strict mode), as they arrive: the first 100, each
   * `expected` and `actual` cut to 4,096 characters (`truncated` then set; the 409 reply has them whole)
   */
  readonly mismatches: readonly ReplayMismatch[];
  /** how many requests did not match, all of them (`mismatches` keeps the first 100) */
  readonly mismatchCount: number;
  close(): Promise<void>;
}

/** A recording that cannot be replayed: no model calls, or their content was not recorded. */
export class ReplayRecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayRecordingError";
  }
}

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Checks that a recording can be replayed: it has model calls, each with its request and response content. */
export function checkReplayable(recording: Recording): void {
  if (recording.calls.length === 0) throw new ReplayRecordingError("the recording has no model (llm) calls to replay");
  const missing = recording.missingContent;
  if (missing.length === 0) return;
  const more = missing.length > 3 ? `; and ${missing.length - 3} more` : "";
  throw new ReplayRecordingError(
    "the recording's model responses/content are missing (content capture was off, or a sanitizer withheld it): " +
      missing.slice(0, 3).join("; ") +
      more,
  );
}

function send(res: ServerResponse, reply: ReplayReply): void {
  if ("events" in reply) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // Written in batches: a long reply is thousands of small events, and a write each costs more than the events.
    let batch = "";
    for (const ev of reply.events) {
      batch += `${ev.event ? `event: ${ev.event}\n` : ""}data: ${ev.data}\n\n`;
      if (batch.length < 64 * 1024) continue;
      res.write(batch);
      batch = "";
    }
    res.end(batch);
    return;
  }
  const text = typeof reply.body === "string" ? reply.body : jsonText(reply.body);
  res.writeHead(reply.status, { "content-type": typeof reply.body === "string" ? "text/plain; charset=utf-8" : "application/json" });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  send(res, { status, body: { error: { type, message } } });
}

/** Reads a request body up to the limit; undefined (after answering 413) when it is larger. */
async function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) {
      sendError(res, 413, "request_too_large", `request body over ${MAX_REQUEST_BYTES} bytes`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(session: ReplaySession, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = routeOf(req.url ?? "");
  if (req.method !== "POST" || route === undefined) {
    sendError(
      res,
      404,
      "not_found",
      `no model endpoint at ${req.method} ${req.url}; the replay serves chat/completions, responses, messages and Gemini's generateContent`,
    );
    return;
  }
  const text = await readBody(req, res);
  if (text === undefined) return;
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    sendError(res, 400, "invalid_request", "request body is not JSON");
    return;
  }
  const stream = route.streamPath || (typeof body === "object" && body !== null && !Array.isArray(body) && body["stream"] === true);
  send(res, await session.answer(route, body, stream));
}

function listenOn(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

/** Starts the HTTP server of a session on 127.0.0.1. The recording's content is released on close (or on failure). */
export async function serveReplay(
  recording: Recording,
  options: { strict?: boolean; port?: number; onMismatch?: (mismatch: ReplayMismatch) => void } = {},
): Promise<ReplayServer> {
  const session = new ReplaySession(recording, options.strict ?? true, options.onMismatch);
  const server: Server = createServer((req, res) => {
    handle(session, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "replay_error", error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  try {
    checkReplayable(recording);
    await listenOn(server, options.port ?? 0);
  } catch (error) {
    await recording.content.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: session.callCount,
    get served() {
      return session.servedCount;
    },
    mismatches: session.mismatches,
    get mismatchCount() {
      return session.mismatchCount;
    },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(() => recording.content.close())),
  };
}

/**
 * A model server on 127.0.0.1 that answers the LLM calls of a recording, in recorded order and in
 * the recorded dialect (JSON, or server-sent events when a request streams). Strict by default:
 * a request whose transcript differs from the recorded one gets HTTP 409, is counted in
 * `mismatchCount` and, among the first 100, listed in `mismatches`. Throws
 * `ReplayRecordingError` when the recording holds no responses to replay.
 * A `file` is read in one pass that keeps where each call's lines are, not their content: each
 * request reads its recorded call again, so a recording larger than memory replays.
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  REPLAY_OPTIONS.check(options);
  if ((options?.file === undefined) === (options?.events === undefined)) {
    const got = options?.file === undefined ? "neither" : "both";
    throw new TypeError(`startReplayServer: options must have either file (an ATOF file) or events (got ${got})`);
  }
  let recording: Recording;
  if (options.events !== undefined) recording = await collectRecording(options.events);
  else recording = await collectRecordingFile(options.file!, streamAtofRecords(options.file!));
  return serveReplay(recording, {
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
}
